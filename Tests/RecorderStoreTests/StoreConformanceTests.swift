import Foundation
import GatewayTime
import Logging
import Ownership
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
    @Test("no clock of its own: retention is cut on the gateway's")
    func noStoreClock() async throws {
        #expect(try await Self.recorder().storeTime() == nil)
        #expect(try await Self.states().storeTime() == nil)
    }
}

/// The same checks against PostgreSQL (`WG_TEST_POSTGRES_URL`), a new database each. The
/// device snapshots go through an instance that holds every ownership partition (a cluster of
/// one after its first heartbeat); their fencing is `PostgresLeaseTests`'.
@Suite("PostgreSQL store conformance", .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresStoreConformanceTests {
    private static func recorder(_ check: @Sendable @escaping (any RecorderStoring) async throws -> Void) async throws {
        try await TestPostgres.withStore { try await check(PostgresRecorderStore($0)) }
    }
    private static func states(_ check: @Sendable @escaping (any DeviceSnapshotStoring) async throws -> Void) async throws {
        try await TestPostgres.withStore { client in
            let ownership = LeasedOwnership(
                store: PostgresLeaseStore(client), member: LeaseMember(name: "conformance", incarnation: "1"),
                timing: LeaseHolder.Timing(ttl: 300, margin: 1, warmup: 0), heartbeat: 1, clock: SystemGatewayClock(), logger: Logger(label: "conformance"))
            await ownership.beat()
            try await check(PostgresLeasedStateStore(client, ownership: ownership))
        }
    }

    @Test("duplicates and overlaps stored once") func deduplicates() async throws { try await Self.recorder(StoreConformance.deduplicates) }
    @Test("pages in order across partitions") func pages() async throws { try await Self.recorder(StoreConformance.pagesAcrossHours) }
    @Test("pruning drops whole hours, then over the cap") func pruneHours() async throws { try await Self.recorder(StoreConformance.prunesWholeHours) }
    @Test("pruning inside an hour: answers start at the cut-off") func pruneInside() async throws {
        try await Self.recorder(StoreConformance.prunesInsideAnHour)
    }
    @Test("tremor minutes, device state, statistics") func minutes() async throws { try await Self.recorder(StoreConformance.tremorMinutesAndState) }
    @Test("snapshots saved, loaded, pruned") func snapshots() async throws {
        try await Self.states { try await StoreConformance.snapshotsSaveAndLoad($0, listsDevices: false) }
    }
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
