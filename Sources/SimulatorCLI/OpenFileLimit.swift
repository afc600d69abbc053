import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Room for one MQTT connection per simulated device in this process's open-file limit.
///
/// A connection holds four descriptors (its socket, the transport's wake-up eventfd and the
/// socket pair libmosquitto keeps), so the soft limit most shells start with (`ulimit -n`
/// 1,024) stops at about 250 devices with "Too many open files". The soft limit may be raised
/// up to the hard one without privileges, as servers commonly do at start.
enum OpenFileLimit {
    /// Descriptors one device connection holds.
    static let descriptorsPerConnection = 4
    /// Room kept for everything else the process opens (standard streams, logs, captures, name lookups).
    static let spare = 64
    /// `RLIM_INFINITY` (all bits set; the C macro does not import).
    private static let unlimited = rlim_t.max

    /// Raises the soft limit (up to the hard one) when `connections` more connections need it.
    /// - Throws: a `ValidationError` naming `--devices` when even the hard limit is too low.
    static func ensureRoom(forConnections connections: Int) throws {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        let needed = open + connections * descriptorsPerConnection + spare
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != unlimited else { return }
        guard rlim_t(needed) > limit.rlim_cur else { return }
        guard limit.rlim_max == unlimited || rlim_t(needed) <= limit.rlim_max else {
            throw ValidationError(
                "--devices: \(connections) device connections need about \(needed) open files, but this process may open at most "
                    + "\(limit.rlim_max) (the hard limit, ulimit -Hn); raise it or simulate fewer devices per process")
        }
        var raised = limit
        raised.rlim_cur = limit.rlim_max == unlimited ? rlim_t(needed) : limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) != 0 {
            let failure = String(cString: strerror(errno))
            throw ValidationError(
                "--devices: \(connections) device connections need about \(needed) open files; raising the limit from \(limit.rlim_cur) failed: \(failure)")
        }
    }
}
