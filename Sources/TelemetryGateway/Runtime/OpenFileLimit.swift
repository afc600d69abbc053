#if canImport(Glibc)
import Glibc
#endif

/// This process's limit on open files (`RLIMIT_NOFILE`), and raising its soft limit.
///
/// Shells and service managers commonly start programs with a soft limit of 1,024 and a much
/// higher hard one. The soft limit may be raised up to the hard one without privileges, which
/// servers commonly do at start: `wearable-gateway run` does (each HTTP client, MQTT connection,
/// store connection and file holds a descriptor, and running out makes reconnects fail with
/// "Too many open files"), and `wearable-sim publish` does when its devices need it.
public enum OpenFileLimit {
    /// The soft and hard limits; `nil` when `getrlimit` fails.
    public static func current() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to `wanted`, or to the hard limit when `wanted` is nil or above it;
    /// a soft limit already there stays.
    /// - Returns: the soft limit before and after.
    /// - Throws: the `setrlimit` failure, described.
    @discardableResult
    public static func raiseSoftLimit(to wanted: UInt64? = nil) throws(OpenFileLimitError) -> (before: UInt64, after: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw OpenFileLimitError(description: "getrlimit failed: \(String(cString: strerror(errno)))")
        }
        let before = UInt64(limit.rlim_cur)
        // An unlimited hard limit (RLIM_INFINITY, all bits set) names no number to raise to.
        guard wanted != nil || limit.rlim_max != rlim_t.max else { return (before, before) }
        let target = min(wanted ?? UInt64(limit.rlim_max), UInt64(limit.rlim_max))
        guard target > before else { return (before, before) }
        limit.rlim_cur = rlim_t(target)
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw OpenFileLimitError(description: "raising it from \(before) to \(target) failed: \(String(cString: strerror(errno)))")
        }
        return (before, target)
    }
}

/// Why the open-file limit could not be read or raised.
public struct OpenFileLimitError: Error, CustomStringConvertible {
    public let description: String
}
