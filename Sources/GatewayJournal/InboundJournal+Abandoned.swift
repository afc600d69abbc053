import Foundation
import Glibc

extension InboundJournal {
    /// Removes the journal file at `path` if no process has it open: it is locked without
    /// waiting first (as ``InboundJournal`` locks its file while open), so a journal in use, in
    /// this process or another, is left alone.
    ///
    /// A clustered adopter's stand-ins each write a journal file of their own that nothing reads
    /// after them (what they held is in the dead name's broker session): a stand-in starts on a
    /// fresh file rather than replaying an earlier stand-in's records, and the adopter's next run
    /// removes those its earlier runs left (``removeAbandoned(in:prefix:suffix:)``).
    /// - Returns: whether it removed the file.
    @discardableResult
    package static func removeIfAbandoned(_ path: String) -> Bool {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0 && unlink(path) == 0
    }

    /// Removes the journal files in `directory` named `prefix…suffix`, with something between
    /// the two, that no process has open (``removeIfAbandoned(_:)``).
    /// - Returns: the paths removed.
    @discardableResult
    package static func removeAbandoned(in directory: String, prefix: String, suffix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        return names.sorted()
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) && $0.count > prefix.count + suffix.count }
            .map { directory.isEmpty ? $0 : directory + "/" + $0 }
            .filter(removeIfAbandoned)
    }
}
