import Foundation

/// How many bytes of the page cache the kernel lets stay dirty before it slows the processes
/// that write (`vm.dirty_bytes`, or `vm.dirty_ratio` percent of the memory available).
///
/// The journal's sync leaves released records to the kernel's own write-back, so the whole ring
/// may be dirty at once. A ring larger than this limit gets its writes slowed when it fills, and
/// the subscriber's network thread with them: worth a warning at start.
package struct DirtyPageLimit: Equatable {
    /// The limit in bytes.
    package var bytes: Int
    /// How it was set, for the log: `vm.dirty_bytes` or the ratio of available memory.
    package var origin: String

    /// The limit from the text of `/proc/meminfo`, `/proc/sys/vm/dirty_ratio` and
    /// `/proc/sys/vm/dirty_bytes`; nil when they do not say (no `MemAvailable`, unreadable
    /// numbers). A non-zero `dirty_bytes` wins, as in the kernel.
    package static func parse(meminfo: String, dirtyRatio: String, dirtyBytes: String) -> DirtyPageLimit? {
        if let bytes = Int(dirtyBytes.trimmingCharacters(in: .whitespacesAndNewlines)), bytes > 0 {
            return DirtyPageLimit(bytes: bytes, origin: "vm.dirty_bytes")
        }
        guard let ratio = Int(dirtyRatio.trimmingCharacters(in: .whitespacesAndNewlines)),
            let line = meminfo.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") })
        else { return nil }
        // "MemAvailable:    1234567 kB"
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
        let available = kilobytes * 1024
        return DirtyPageLimit(
            bytes: available / 100 * ratio, origin: "vm.dirty_ratio \(ratio) % of \(available / 1_048_576) MiB available")
    }

    /// This machine's limit now; nil where /proc does not say.
    package static func current() -> DirtyPageLimit? {
        func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
        guard let meminfo = read("/proc/meminfo"), let ratio = read("/proc/sys/vm/dirty_ratio"), let bytes = read("/proc/sys/vm/dirty_bytes")
        else { return nil }
        return parse(meminfo: meminfo, dirtyRatio: ratio, dirtyBytes: bytes)
    }

    /// The start-up warning for a ring of `ringBytes` at `path`, or nil when it fits.
    package func warning(ringBytes: Int, path: String) -> String? {
        guard ringBytes > bytes else { return nil }
        return "journal.sizeBytes: the ring of \(path) (\(ringBytes / 1_048_576) MiB) may be dirty whole, more than the kernel lets stay dirty "
            + "(\(bytes / 1_048_576) MiB: \(origin)); when it fills, the kernel slows the journal's writes and the subscriber with them. "
            + "Pick a journal.sizeBytes under \(bytes / 1_048_576) MiB, or raise vm.dirty_ratio"
    }
}
