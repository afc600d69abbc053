import ArgumentParser
import Foundation
import TelemetryGateway

/// Room for one MQTT connection per simulated device in this process's open-file limit.
///
/// A connection holds four descriptors (its socket, the transport's wake-up eventfd and the
/// socket pair libmosquitto keeps), so the soft limit most shells start with (`ulimit -n`
/// 1,024) stops at about 250 devices with "Too many open files".
extension OpenFileLimit {
    /// Descriptors one device connection holds.
    static let descriptorsPerConnection = 4
    /// Room kept for everything else the process opens (standard streams, logs, captures, name lookups).
    static let spare = 64

    /// Raises the soft limit (to the hard one) when `connections` more connections need it.
    /// - Throws: a `ValidationError` naming `--devices` when even the hard limit is too low.
    static func ensureRoom(forConnections connections: Int) throws {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        let needed = UInt64(open + connections * descriptorsPerConnection + spare)
        guard let limit = current(), needed > limit.soft else { return }
        let unlimited = UInt64.max
        guard limit.hard == unlimited || needed <= limit.hard else {
            throw ValidationError(
                "--devices: \(connections) device connections need about \(needed) open files, but this process may open at most "
                    + "\(limit.hard) (the hard limit, ulimit -Hn); raise it or simulate fewer devices per process")
        }
        do {
            try raiseSoftLimit(to: limit.hard == unlimited ? needed : limit.hard)
        } catch {
            throw ValidationError("--devices: \(connections) device connections need about \(needed) open files; \(error)")
        }
    }
}
