import Foundation
import GRDB

extension DatabasePool {
    /// Opens a store file the way every gateway store is opened: its directory created, WAL
    /// (GRDB's pool) with `synchronous = NORMAL` (survives a process crash, much faster than
    /// FULL for many small transactions), and a busy writer waiting up to 10 s instead of
    /// failing (pruning may hold the lock for a moment).
    /// - Parameters:
    ///   - path: the SQLite file.
    ///   - label: GRDB's label for its queues.
    ///   - migrator: brings the schema up to date.
    static func gatewayStore(path: String, label: String, migrator: DatabaseMigrator) throws -> DatabasePool {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.label = label
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }
}
