import Foundation
import GRDB

/// Moves an unusable store file out of the way, so a fresh one can take its place and the
/// gateway starts; the old file is kept beside it (`state.sqlite.corrupt-20261123T091500Z`)
/// for whoever wants to look at it.
struct StoreFileQuarantine {
    /// The store's file.
    let path: String

    /// SQLite's verdicts that blame the file itself: not a database, damaged, or not openable
    /// or writable as it is. A busy or locked file (another process) is never moved.
    private static let fileFaults: [ResultCode] = [.SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM]

    /// Moves the file (and its `-wal` and `-shm` companions) aside when `error`, the failed
    /// open, was the file's fault.
    /// - Parameters:
    ///   - error: why the store could not be opened.
    ///   - date: the wall-clock time named in the new file name.
    /// - Returns: where the file went, or nil when nothing was moved (no file there, or an error
    ///   that is not the file's fault).
    /// - Throws: when the file could not be moved (for instance, its directory is read-only).
    func moveAside(after error: any Error, at date: Date) throws -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        let blamesFile = isDirectory.boolValue || (error as? DatabaseError).map { Self.fileFaults.contains($0.resultCode) } ?? false
        guard blamesFile else { return nil }
        let target = freeName(base: "\(path).corrupt-\(Self.stamp(date))")
        try FileManager.default.moveItem(atPath: path, toPath: target)
        // The companions belong to the old file; a fresh database must not pick them up.
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.moveItem(atPath: path + suffix, toPath: target + suffix)
        }
        return target
    }

    /// `base`, or `base.2`, `base.3`, … when an earlier file took it in the same second.
    private func freeName(base: String) -> String {
        var candidate = base
        var number = 1
        while FileManager.default.fileExists(atPath: candidate) {
            number += 1
            candidate = "\(base).\(number)"
        }
        return candidate
    }

    /// `20261123T091500Z`: sortable, and free of characters some tools dislike in file names.
    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
