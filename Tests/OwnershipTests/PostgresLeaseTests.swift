import Foundation
import GatewayTime
import Locking
import Logging
import Ownership
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import Testing

/// The leases on a real PostgreSQL (`WG_TEST_POSTGRES_URL`): expiry by the server's clock, no
/// take from a live holder, hand-over by compare-and-set after an offer, one notification per
/// moved partition, snapshot writes fenced by the partition's epoch, and two
/// ``LeasedOwnership``s stepping on a manual clock.
@Suite("Ownership leases on PostgreSQL", .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresLeaseTests {
    let a = LeaseMember(name: "gw-a", incarnation: "a-1")
    let b = LeaseMember(name: "gw-b", incarnation: "b-1")

    /// Collects the notifications of the partition channel on a connection of its own.
    final class PartitionNotices: Sendable {
        let payloads = LockedState<[String]>([])
        private let task: Task<Void, any Error>
        private let listening = LockedState(false)

        init(_ settings: PostgresStoreSettings) {
            let (payloads, listening) = (payloads, listening)
            task = Task {
                let connection = try await PostgresConnection.connect(
                    configuration: .init(
                        host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database,
                        tls: .disable),
                    id: 7, logger: Logger(label: "test-notices"))
                do {
                    try await connection.listen(on: PostgresLeaseStore.channel) { notifications in
                        listening.withLock { $0 = true }
                        for try await notification in notifications { payloads.withLock { $0.append(notification.payload) } }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            }
        }

        /// Waits until LISTEN is in effect (polled, bounded).
        func started() async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while !listening.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(listening.withLock { $0 })
        }

        /// The payloads once the one containing `marker` arrived: every earlier commit's are in.
        func until(_ marker: String) async throws -> [String] {
            let deadline = ContinuousClock.now + .seconds(10)
            while !payloads.withLock({ $0.contains { $0.contains(marker) } }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            return payloads.withLock { $0.filter { !$0.contains(marker) } }
        }

        func stop() { task.cancel() }
    }

    @Test("a live holder's lease is not taken; an expired one is, by the server's clock; renewal keeps an expired lease nobody took")
    func expiryOnTheServersClock() async throws {
        try await TestPostgres.withStore { client in try await LeaseStoreContract.expiry(PostgresLeaseFixture(client: client)) }
    }

    @Test("hand-over: only an offered partition is accepted, by compare-and-set under the next epoch; one notification per moved partition")
    func handOver() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let client = TestPostgres.client(settings)
        let running = Task { await client.run() }
        defer { running.cancel() }
        // Registered first, so the listener is up before the first take.
        _ = try await PostgresLeaseStore(client).heartbeat(a, ttl: 30)
        let notices = PartitionNotices(settings)
        defer { notices.stop() }
        try await notices.started()
        try await LeaseStoreContract.handOver(PostgresLeaseFixture(client: client))
        let session = try await TestStoreSession.connect(settings)
        try await session.notify(PostgresLeaseStore.channel, "marker")
        await session.close()
        let payloads = try await notices.until("marker")
        // 8 takes and 2 accepts: one notification each; renewals and offers none.
        #expect(payloads.count == 10, "\(payloads)")
        #expect(payloads.suffix(2).allSatisfy { $0.contains(#""owner" : "gw-b""#) && $0.contains(#""epoch" : 2"#) }, "\(payloads)")
    }

    @Test("the output ledger: an output is recorded once, only by its partition's holder under the epoch it holds; a hand-over fences the old holder, a restart's new run too")
    func outputLedger() async throws {
        try await TestPostgres.withStore { client in try await LeaseStoreContract.outputLedger(PostgresLeaseFixture(client: client)) }
    }

    @Test("leave ends the leases at once (taken without waiting for the time to live); a restart under the same name that knows its earlier run ended takes that run's at once")
    func leaveAndRestart() async throws {
        try await TestPostgres.withStore { client in try await LeaseStoreContract.leaveAndRestart(PostgresLeaseFixture(client: client)) }
    }

    @Test("one live run per name: a second run is refused with the other run's name, start and renewal, and changes nothing; it registers once that row expired, then the first run is refused and takes nothing back")
    func oneLiveRunPerName() async throws {
        try await TestPostgres.withStore { client in try await LeaseStoreContract.oneLiveRunPerName(PostgresLeaseFixture(client: client)) }
    }

    @Test("LeasedOwnership under one live run per name: a second run waits while the other's row is not renewed and stops once it is; a run replaced after its row expired stops, holding nothing")
    func leasedOwnershipOneRunPerName() async throws {
        try await TestPostgres.withStore { client in
            let clock = ManualGatewayClock(wallTime: 1_800_000_000)
            let store = PostgresLeaseStore(client)
            // Heartbeats the store answered (registered), by run: the round-trip metric's samples.
            let answered = LockedState<[String: Int]>([:])
            let make = { (incarnation: String, ttl: Double) in
                LeasedOwnership(
                    store: store, member: LeaseMember(name: "gw-a", incarnation: incarnation), timing: LeaseHolder.Timing(ttl: ttl, margin: ttl / 4, warmup: 0),
                    heartbeat: 1, clock: clock, logger: Logger(label: incarnation),
                    heartbeatAnswered: { seconds in answered.withLock { $0[incarnation, default: 0] += seconds >= 0 ? 1 : 1_000 } })
            }
            // A live first run: the second is refused, waits one heartbeat (the row might be a
            // dead run's), then sees it renewed and stops without having held anything.
            let live = make("a-1", 300)
            await live.beat()
            #expect(live.held.count == 1_024)
            let second = make("a-2", 300)
            await second.beat()
            #expect(second.held.isEmpty && second.role(of: "watch-1") == .none)
            await live.beat()
            await #expect(throws: InstanceNameInUse.self) { try await second.run() }
            #expect(live.held.count == 1_024 && live.role(of: "watch-1") == .owner(epoch: 1), "the refused run disturbed the live one")
            #expect(answered.withLock { $0 } == ["a-1": 2], "a round trip per registered heartbeat, none for a refused one")
            await live.leave(within: 0)

            // A run that stops renewing (frozen): a new run waits for its row to expire by the
            // store's clock, then registers and takes its leases at once under the next epochs.
            let frozen = make("a-3", 1)
            await frozen.beat()
            #expect(frozen.held.count == 1_024)
            let replacement = make("a-4", 300)
            await replacement.beat()
            #expect(replacement.held.isEmpty)
            let deadline = ContinuousClock.now + .seconds(10)
            while try await store.view().instances["gw-a"] != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            await replacement.beat()
            #expect(replacement.held.count == 1_024)
            let epoch = replacement.held[0]
            // Thawed, the frozen run is refused at its next heartbeat: it lets everything go and stops.
            await #expect(throws: InstanceNameInUse.self) { try await frozen.run() }
            #expect(frozen.held.isEmpty && frozen.role(of: "watch-1") == .none)
            await replacement.beat()
            #expect(replacement.held.count == 1_024 && replacement.held[0] == epoch, "the replaced run took a lease back")
        }
    }

    @Test("a dead instance is adopted once, within the window after its row expired: nobody else takes its partitions meanwhile, a restart of its name waits, its stand-in takes them at once; unadopted, they go after the window")
    func adoption() async throws {
        try await TestPostgres.withStore { client in try await LeaseStoreContract.adoption(PostgresLeaseFixture(client: client)) }
    }

    @Test("a stand-in that dies with its adopter (registered or not yet) is adopted again within the window after its row and its adoption ran out: nobody takes its partitions meanwhile, the next stand-in holds them under the next epochs")
    func standInAdoptedAgain() async throws {
        try await TestPostgres.withStore { client in try await LeaseStoreContract.standInAdoptedAgain(PostgresLeaseFixture(client: client)) }
    }

    @Test("after a store outage that let every row run out, the first instance back adopts nobody (its own row was not live when the others' expired); a death while it is live is adopted")
    func noAdoptionAfterOutage() async throws {
        try await TestPostgres.withStore { client in try await LeaseStoreContract.noAdoptionAfterOutage(PostgresLeaseFixture(client: client)) }
    }

    @Test("snapshot writes are fenced by the partition's epoch: the old holder writes nothing after a hand-over, the new one writes; a device the old holder made known is taken up once by the new one")
    func fencedSnapshots() async throws {
        try await TestPostgres.withStore { client in
            let store = PostgresLeaseStore(client)
            let partitions = OwnershipPartitions()
            let device = "watch-1"
            let partition = partitions.partition(of: device)
            _ = try await store.heartbeat(a, ttl: 300)
            _ = try await store.heartbeat(b, ttl: 300)
            #expect(try await store.take([partition], by: a, ttl: 300) == [partition: 1])
            func snapshot(_ epoch: Int64, _ text: String) -> LeasedSnapshot {
                LeasedSnapshot(device: device, partition: partition, epoch: epoch, lastSeen: 1_800_000_000, snapshot: #"{"v":"\#(text)"}"#)
            }
            #expect(try await store.save([snapshot(1, "a1")], by: a) == [device])
            #expect(try await store.save([snapshot(1, "b?")], by: b).isEmpty, "a non-holder wrote")
            try await store.offer([partition: 1], to: "gw-b", by: a)
            #expect(try await store.accept([partition: 1], by: b, ttl: 300) == [partition: 2])
            #expect(try await store.save([snapshot(1, "a2")], by: a).isEmpty, "the old holder wrote after the hand-over")
            #expect(try await store.snapshots(in: partition) == [device: #"{"v":"a1"}"#])
            // A device the store has no row of, written too late by the old holder: made known, not written.
            let newcomer = try #require((0..<100_000).map { "watch-\($0)" }.first { $0 != device && partitions.partition(of: $0) == partition })
            let late = LeasedSnapshot(device: newcomer, partition: partition, epoch: 1, lastSeen: 1_800_000_000, snapshot: #"{"v":"a-new"}"#)
            #expect(try await store.save([late], by: a).isEmpty)
            #expect(try await store.snapshots(in: partition) == [device: #"{"v":"a1"}"#, newcomer: #"{"v":"a-new"}"#])
            // The holder takes the newcomer up once; the old holder, holding nothing here, takes nothing.
            #expect(try await store.adoptMadeKnown(by: a).isEmpty)
            #expect(try await store.adoptMadeKnown(by: b) == [newcomer])
            #expect(try await store.adoptMadeKnown(by: b).isEmpty, "taken up twice")
            #expect(try await store.save([snapshot(2, "b1")], by: b) == [device])
            #expect(try await store.snapshots(in: partition)[device]?.contains("b1") == true)
            // The holder's own write of the newcomer overwrites what made it known; a stale one does not.
            #expect(try await store.save([LeasedSnapshot(device: newcomer, partition: partition, epoch: 2, lastSeen: 1_800_000_001, snapshot: #"{"v":"b-new"}"#)], by: b) == [newcomer])
            #expect(try await store.save([late], by: a).isEmpty)
            #expect(try await store.snapshots(in: partition)[newcomer] == #"{"v":"b-new"}"#)
        }
    }

    @Test("a heartbeat renews while a fenced snapshot write holds its lease row; a hand-over of that partition waits for the write, which lands first, under the old epoch")
    func heartbeatBesideFencedWrites() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let client = TestPostgres.client(settings)
        let running = Task { await client.run() }
        defer { running.cancel() }
        let store = PostgresLeaseStore(client)
        let device = "watch-1"
        let partition = OwnershipPartitions().partition(of: device)
        func snapshot(_ text: String) -> LeasedSnapshot {
            LeasedSnapshot(device: device, partition: partition, epoch: 1, lastSeen: 1_800_000_000, snapshot: #"{"v":"\#(text)"}"#)
        }
        _ = try await store.heartbeat(a, ttl: 300)
        _ = try await store.heartbeat(b, ttl: 300)
        #expect(try await store.take([partition], by: a, ttl: 300) == [partition: 1])
        #expect(try await store.save([snapshot("a1")], by: a) == [device])
        try await store.offer([partition: 1], to: "gw-b", by: a)

        // Another writer holds the device's row: the holder's next write of it locks its lease
        // row and then waits, as a slow write does.
        let blocker = try await TestStoreSession.connect(settings)
        let watcher = try await TestStoreSession.connect(settings)
        defer { Task { await blocker.close(); await watcher.close() } }
        try await blocker.holdDeviceRow(device)
        let write = Task { try await store.save([snapshot("a2")], by: a) }
        /// Polls (bounded) until `fragment`'s statement waits for a lock, or `done` holds first.
        func waits(_ fragment: String, unless done: @escaping @Sendable () -> Bool = { false }) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if try await watcher.waitingForLocks(fragment) > 0 { return true }
                if done() { return false }
                try await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
        #expect(try await waits("INSERT INTO device_state"), "the write never waited")

        // The renewal: done while the write holds the lease row, not waiting behind it.
        let renewed = LockedState<[Int: Int64]?>(nil)
        let renewal = Task {
            let leases = try await store.heartbeat(a, ttl: 300)
            renewed.withLock { $0 = leases }
        }
        let renewalWaited = try await waits("WITH me AS", unless: { renewed.withLock { $0 } != nil })
        #expect(!renewalWaited, "the heartbeat waited for the write's lock on its lease row")
        if !renewalWaited { try await renewal.value }
        #expect(renewed.withLock { $0 } == [partition: 1])

        // The hand-over moves the epoch: it waits for the write.
        let accepted = LockedState(false)
        let accept = Task {
            defer { accepted.withLock { $0 = true } }
            return try await store.accept([partition: 1], by: b, ttl: 300)
        }
        #expect(try await waits("offered_to = ", unless: { accepted.withLock { $0 } }), "the accept did not wait for the write in flight")
        try await blocker.commit()
        try await renewal.value
        #expect(try await write.value == [device], "the write in flight was not written under its lease")
        #expect(try await accept.value == [partition: 2])
        #expect(try await store.snapshots(in: partition) == [device: #"{"v":"a2"}"#])
        #expect(try await store.save([snapshot("a3")], by: a).isEmpty, "the old holder wrote after the hand-over")
    }

    @Test("two LeasedOwnerships on a manual clock: the first takes all, the second joins and gets its share after the warm-up of its listed partitions, counted from their SUBACKs; roles and events follow")
    func twoInstancesJoin() async throws {
        try await TestPostgres.withStore { client in
            let clock = ManualGatewayClock(wallTime: 1_800_000_000)
            let timing = LeaseHolder.Timing(ttl: 300, margin: 5, warmup: 3)
            let partitions = OwnershipPartitions()
            let first = LeasedOwnership(
                store: PostgresLeaseStore(client), member: a, partitions: partitions, timing: timing, heartbeat: 1, clock: clock, logger: Logger(label: "a"))
            let second = LeasedOwnership(
                store: PostgresLeaseStore(client), member: b, partitions: partitions, timing: timing, heartbeat: 1, clock: clock, logger: Logger(label: "b"))
            let events = LockedState<[String: [OwnershipChange]]>([:])
            first.observe { change in events.withLock { $0["a", default: []].append(change) } }
            second.observe { change in events.withLock { $0["b", default: []].append(change) } }

            await first.beat()
            #expect(first.held.count == 1_024)
            #expect(first.role(of: "watch-1") == .owner(epoch: 1))
            #expect(second.role(of: "watch-1") == .none)

            let theirs = Set(PartitionAssignment(partitions: partitions, instances: ["gw-a", "gw-b"]).partitions(of: "gw-b"))
            let moving = (0..<10_000).map { "device-\($0)" }.first { theirs.contains(partitions.partition(of: $0)) }!
            await second.beat()  // registers, warms its share
            #expect(second.role(of: moving) == .warming)
            // Its devices listed and their subscriptions requested (the ownership service); the
            // broker has not acknowledged them yet.
            let acknowledged = LockedState(false)
            second.prepared(Array(theirs), subscribed: { _ in acknowledged.withLock { $0 } })
            #expect(first.role(of: moving) == .owner(epoch: 1))
            await first.beat()  // offers
            clock.advance(by: 3)
            await second.beat()  // offered, listed 3 s ago, but nothing acknowledged: not prepared
            #expect(second.held.isEmpty, "accepted before the broker acknowledged its subscriptions")
            acknowledged.withLock { $0 = true }
            await second.beat()  // the SUBACKs came: prepared from now, not warmed up for 3 s yet
            #expect(second.held.isEmpty)
            clock.advance(by: 3)
            await second.beat()  // accepts
            #expect(Set(second.held.keys) == theirs)
            #expect(second.role(of: moving) == .owner(epoch: 2))
            #expect(first.role(of: moving) == .owner(epoch: 1), "the old holder hears of it at its next heartbeat")
            // A retained message the old holder stamped, announced again by the new one: stamped anew.
            let stamped = try #require(first.visible([OutboundMessage(.connection, of: DeviceID(moving)!, in: TopicScheme(), payload: Array("{}".utf8))]).first)
            #expect(stamped.userProperties.map { "\($0.name)=\($0.value)" } == ["instance=gw-a", "epoch=1"])
            #expect(second.visible([stamped]).first?.userProperties.map { "\($0.name)=\($0.value)" } == ["instance=gw-b", "epoch=2"])
            await first.beat()
            #expect(first.role(of: moving) == .none)
            #expect(first.visible([stamped]).isEmpty, "a lost device's message is not published")
            // ... unless it comes of a frame received while it held the device, before it heard of the loss.
            #expect(
                first.visible([stamped], receivedAs: .owner(epoch: 1)).first?.userProperties.map { "\($0.name)=\($0.value)" } == ["instance=gw-a", "epoch=1"],
                "published under the epoch it was received under")
            #expect(first.visible([stamped], receivedAs: .warming).isEmpty)
            #expect(first.held.count == 1_024 - theirs.count)
            let seen = events.withLock { $0 }
            #expect(seen["b"]?.filter { if case .gained = $0 { true } else { false } }.count == theirs.count)
            #expect(seen["a"]?.filter { if case .lost = $0 { true } else { false } }.count == theirs.count)

            // Past its deadline without a heartbeat, the holder keeps its roles and says so.
            #expect(!first.status.pastDeadline)
            clock.advance(by: 296)
            #expect(first.status.pastDeadline)
            #expect(first.role(of: "watch-1") != .none || theirs.contains(partitions.partition(of: "watch-1")))
            await second.leave(within: 0)
            #expect(second.held.isEmpty)
            #expect(second.role(of: moving) == .none)
            await first.beat()
            #expect(first.held.count == 1_024, "the leaver's leases were taken at once")
        }
    }
}

/// The contract's PostgreSQL: the store's clock is the server's, which runs by itself.
struct PostgresLeaseFixture: LeaseStoreFixture {
    let client: PostgresStoreClient

    func store(adoptionWindow: Double) -> PostgresLeaseStore { PostgresLeaseStore(client, adoptionWindow: adoptionWindow) }

    func now() async throws -> Double { try await client.serverTime() }

    @discardableResult
    func pass(atMost seconds: Double, until condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        let held = try await condition()
        if !held { Issue.record("the store's time passed \(seconds) s and the awaited state never came") }
        return held
    }

    func writeSnapshot(device: String, partition: Int, epoch: Int64, by member: LeaseMember) async throws -> Bool? {
        let snapshot = LeasedSnapshot(device: device, partition: partition, epoch: epoch, lastSeen: 1, snapshot: "{}")
        return try await PostgresLeaseStore(client).save([snapshot], by: member).contains(device)
    }
}
