import Foundation
import Locking
import Ownership
import PostgresStore
import PostgresTestSupport
import Testing

/// One store client per process, a lane per run (docs/scale-out.md, *A run as a value*): on a
/// real PostgreSQL, a run's lease statements and the store check answer while every connection
/// of the data pool waits for a lock, and a closed lane's connections close.
@Suite("Store lanes on PostgreSQL", .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresStoreLaneTests {
    let a = LeaseMember(name: "gw-a", incarnation: "a-1")

    @Test("with all 8 data connections waiting for a row lock, a heartbeat on the run's lane and the store check both answer; closing the lane closes its connections")
    func laneBesideSaturatedDataPool() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let client = TestPostgres.client(settings)
        let running = Task { await client.run() }
        defer { running.cancel() }
        let dataLeases = PostgresLeaseStore(client)
        let lane = client.openLane(a.incarnation)
        let laneLeases = PostgresLeaseStore(client, lane: lane)
        let device = "watch-1"
        let partition = OwnershipPartitions().partition(of: device)
        func snapshot(_ text: String) -> LeasedSnapshot {
            LeasedSnapshot(device: device, partition: partition, epoch: 1, lastSeen: 1_800_000_000, snapshot: #"{"v":"\#(text)"}"#)
        }
        _ = try await laneLeases.heartbeat(a, ttl: 300)
        #expect(try await laneLeases.take([partition], by: a, ttl: 300) == [partition: 1])
        #expect(try await dataLeases.save([snapshot("0")], by: a) == [device])

        let blocker = try await TestStoreSession.connect(settings)
        let watcher = try await TestStoreSession.connect(settings)
        defer { Task { await blocker.close(); await watcher.close() } }
        try await blocker.holdDeviceRow(device)
        // Eight writes of the blocked row: every connection of the data pool waits in one.
        let writes = (1...8).map { index in Task { try await dataLeases.save([snapshot("\(index)")], by: a) } }
        let deadline = ContinuousClock.now + .seconds(30)
        while try await watcher.waitingForLocks("INSERT INTO device_state") < 8, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await watcher.waitingForLocks("INSERT INTO device_state") == 8, "the data pool's connections were not all waiting")

        // Both answer while the data pool is full (bounded: a wait behind it fails the test).
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = try await laneLeases.heartbeat(a, ttl: 300)
                try await client.check()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(answered, "the heartbeat on the lane or the store check waited behind the data pool")
        #expect(try await watcher.waitingForLocks("INSERT INTO device_state") == 8, "the writes ended before the heartbeat was judged")

        try await blocker.commit()
        for write in writes { #expect(try await write.value == [device]) }

        // The lane's connections close with it; later calls go to the data pool.
        let before = try await watcher.otherConnections()
        #expect(client.openLanes == 1)
        client.closeLane(lane)
        #expect(client.openLanes == 0)
        let closeDeadline = ContinuousClock.now + .seconds(10)
        while try await watcher.otherConnections() >= before, ContinuousClock.now < closeDeadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await watcher.otherConnections() < before, "the closed lane's connections stayed open")
        #expect(try await laneLeases.heartbeat(a, ttl: 300) == [partition: 1])
    }
}
