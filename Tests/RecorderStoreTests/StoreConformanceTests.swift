import Foundation
import PostgresStore
import PostgresTestSupport
import RecorderStore
import Testing

/// The conformance checks (``StoreConformance``) against the SQLite stores, fresh files each.
@Suite("SQLite store conformance")
struct SQLiteStoreConformanceTests {
    private static func path(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)/\(name).sqlite").path
    }
    private static func recorder() throws -> any RecorderStoring { try RecorderDatabase(path: path("recorder")) }
    private static func states() throws -> any DeviceSnapshotStoring { try DeviceStateStore(path: path("state")) }

    @Test("duplicates and overlaps stored once") func deduplicates() async throws { try await StoreConformance.deduplicates(Self.recorder()) }
    @Test("pages in order across the hour") func pages() async throws { try await StoreConformance.pagesAcrossHours(Self.recorder()) }
    @Test("pruning whole hours and over the cap") func pruneHours() async throws { try await StoreConformance.prunesWholeHours(Self.recorder()) }
    @Test("pruning inside an hour") func pruneInside() async throws { try await StoreConformance.prunesInsideAnHour(Self.recorder()) }
    @Test("tremor minutes, device state, statistics") func minutes() async throws { try await StoreConformance.tremorMinutesAndState(Self.recorder()) }
    @Test("snapshots saved, loaded, pruned") func snapshots() async throws { try await StoreConformance.snapshotsSaveAndLoad(Self.states()) }
    @Test("claims and fenced saves") func fencing() async throws { try await StoreConformance.claimsAndFencing(Self.states()) }
    @Test("no clock of its own: retention is cut on the gateway's")
    func noStoreClock() async throws {
        #expect(try await Self.recorder().storeTime() == nil)
        #expect(try await Self.states().storeTime() == nil)
    }

    @Test("concurrent claims from two store objects on one file: one winner per round")
    func concurrentClaims() async throws {
        let file = Self.path("state")
        try await StoreConformance.concurrentClaims(DeviceStateStore(path: file), DeviceStateStore(path: file))
    }

    @Test("epochs keep increasing across reopening the file")
    func epochsSurviveReopening() async throws {
        let file = Self.path("state")
        let before = try await DeviceStateStore(path: file).claim(StoreConformance.watch, instance: "a").epoch
        #expect(try await DeviceStateStore(path: file).claim(StoreConformance.watch, instance: "a").epoch > before)
    }
}

/// The same checks against PostgreSQL (`WG_TEST_POSTGRES_URL`), a new database each; two
/// pools (two sets of connections) for the concurrent claims.
@Suite("PostgreSQL store conformance", .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresStoreConformanceTests {
    private static func recorder(_ check: @Sendable @escaping (any RecorderStoring) async throws -> Void) async throws {
        try await TestPostgres.withStore { try await check(PostgresRecorderStore($0)) }
    }
    private static func states(_ check: @Sendable @escaping (any DeviceSnapshotStoring) async throws -> Void) async throws {
        try await TestPostgres.withStore { try await check(PostgresDeviceStateStore($0)) }
    }

    @Test("duplicates and overlaps stored once") func deduplicates() async throws { try await Self.recorder(StoreConformance.deduplicates) }
    @Test("pages in order across partitions") func pages() async throws { try await Self.recorder(StoreConformance.pagesAcrossHours) }
    @Test("pruning drops whole hours, then over the cap") func pruneHours() async throws { try await Self.recorder(StoreConformance.prunesWholeHours) }
    @Test("pruning inside an hour: answers start at the cut-off") func pruneInside() async throws {
        try await Self.recorder(StoreConformance.prunesInsideAnHour)
    }
    @Test("tremor minutes, device state, statistics") func minutes() async throws { try await Self.recorder(StoreConformance.tremorMinutesAndState) }
    @Test("snapshots saved, loaded, pruned") func snapshots() async throws { try await Self.states(StoreConformance.snapshotsSaveAndLoad) }
    @Test("claims and fenced saves") func fencing() async throws { try await Self.states(StoreConformance.claimsAndFencing) }
    @Test("the store's clock is the server's, for both stores")
    func serverClock() async throws {
        try await Self.recorder { store in
            let time = try #require(try await store.storeTime())
            // The private server runs on this machine: its clock is this one.
            #expect(abs(time - Date().timeIntervalSince1970) < 5, "\(time)")
        }
        try await Self.states { store in
            let time = try #require(try await store.storeTime())
            #expect(abs(time - Date().timeIntervalSince1970) < 5, "\(time)")
        }
    }

    @Test("concurrent claims from two connection pools: one winner per round, epochs decided by the database")
    func concurrentClaims() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let first = TestPostgres.client(settings, label: "a")
        let second = TestPostgres.client(settings, label: "b")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await first.run() }
            group.addTask { await second.run() }
            defer { group.cancelAll() }
            try await StoreConformance.concurrentClaims(PostgresDeviceStateStore(first), PostgresDeviceStateStore(second))
        }
    }

    @Test("two instances starting together migrate the schema once; a second start finds it up to date")
    func migrationsUnderLock() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let clients = (0..<4).map { TestPostgres.client(settings, label: "start-\($0)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in clients { group.addTask { await client.run() } }
            defer { group.cancelAll() }
            try await withThrowingTaskGroup(of: Void.self) { starts in
                for client in clients { starts.addTask { try await client.check() } }
                try await starts.waitForAll()
            }
            #expect(try await clients[0].appliedMigrations() == Array(1...PostgresStoreClient.schemaVersion))
        }
    }
}
