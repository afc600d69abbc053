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
        try await TestPostgres.withStore { client in
            let store = PostgresLeaseStore(client)
            _ = try await store.heartbeat(a, ttl: 1.5)
            // Registered (only the registered run of a name takes anything), live throughout.
            _ = try await store.heartbeat(b, ttl: 60)
            let taken = try await store.take([0, 1, 2], by: a, ttl: 1.5)
            #expect(taken == [0: 1, 1: 1, 2: 1])
            // The server's time before the renewal (read after it, a loaded machine's delay
            // would count against the lease): the lease runs to at least this + 1.5 s.
            let renewedAt = try await client.serverTime()
            #expect(try await store.heartbeat(a, ttl: 1.5) == taken)
            #expect(try await store.take([0, 1, 2], by: b, ttl: 1.5).isEmpty, "a live holder's lease was taken")
            // Expired by the server's clock: poll.
            var view = try await store.view()
            #expect(view.instances == ["gw-a": false, "gw-b": false])
            #expect(view.leases[0] == LeaseView.Lease(partition: 0, owner: "gw-a", incarnation: "a-1", epoch: 1, expired: false))
            let deadline = ContinuousClock.now + .seconds(10)
            while !(try await store.view()).leases[0]!.expired, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(try await client.serverTime() - renewedAt >= 1.4)
            view = try await store.view()
            #expect(view.instances == ["gw-b": false], "the instance row expired with its leases")
            // Nobody took it: the holder's next heartbeat renews it under the same epoch (a
            // store outage moves nothing).
            #expect(try await store.heartbeat(a, ttl: 1.5) == [0: 1, 1: 1, 2: 1])
            #expect(try await store.take([0], by: b, ttl: 1.5).isEmpty)
            // Let it run out again; now another instance takes it under the next epoch.
            while !(try await store.view()).leases[1]!.expired, ContinuousClock.now < deadline + .seconds(10) {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await store.take([1], by: b, ttl: 1.5) == [1: 2])
            #expect(try await store.heartbeat(a, ttl: 1.5) == [0: 1, 2: 1], "the holder learns of the loss at its next heartbeat")
        }
    }

    @Test("hand-over: only an offered partition is accepted, by compare-and-set under the next epoch; one notification per moved partition")
    func handOver() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let client = TestPostgres.client(settings)
        let running = Task { await client.run() }
        defer { running.cancel() }
        let store = PostgresLeaseStore(client)
        _ = try await store.heartbeat(a, ttl: 30)
        let notices = PartitionNotices(settings)
        defer { notices.stop() }
        try await notices.started()
        #expect(try await store.take(Array(0..<8), by: a, ttl: 30).count == 8)
        _ = try await store.heartbeat(b, ttl: 30)
        #expect(try await store.accept([0: 1, 1: 1], by: b, ttl: 30).isEmpty, "accepted without an offer")
        try await store.offer([0: 1, 1: 1, 2: 1], to: "gw-b", by: a)
        try await store.offer([3: 99], to: "gw-b", by: a)
        try await store.offer([4: 1], to: "gw-b", by: b)
        let view = try await store.view()
        #expect((0...2).allSatisfy { view.leases[$0]?.offeredTo == "gw-b" })
        #expect(view.leases[3]?.offeredTo == nil, "an offer under a stale epoch was made")
        #expect(view.leases[4]?.offeredTo == nil, "a non-holder offered")
        #expect(try await store.accept([0: 1, 1: 1, 2: 0], by: b, ttl: 30) == [0: 2, 1: 2], "a stale epoch was accepted")
        #expect(try await store.heartbeat(a, ttl: 30).keys.sorted() == [2, 3, 4, 5, 6, 7])
        #expect(try await store.heartbeat(b, ttl: 30) == [0: 2, 1: 2])
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
        try await TestPostgres.withStore { client in
            let store = PostgresLeaseStore(client)
            _ = try await store.heartbeat(a, ttl: 30)
            #expect(try await store.take([0, 1], by: a, ttl: 30) == [0: 1, 1: 1])
            let swing = { (id: String, partition: Int, epoch: Int64) in
                OutputKey(topic: "gateway/w/swing", eventID: id, partition: partition, epoch: epoch, queueEntry: 1)
            }
            let pose = OutputKey(topic: "gateway/w/headphone/pose", eventID: "", partition: 1, epoch: 1)
            // The holder records, once; a key given twice in a batch is recorded once.
            var answer = try await store.record([swing("e1", 0, 1), swing("e2", 1, 1), swing("e2", 1, 1), pose], by: a)
            #expect(answer.held == [0: 1, 1: 1])
            #expect(answer.recorded == [OutputIdentity(topic: "gateway/w/swing", eventID: "e1"), OutputIdentity(topic: "gateway/w/swing", eventID: "e2")])
            #expect(answer.admits(pose), "an output without an event id goes by the lease alone")
            // A later copy of e1 (another queue entry: a frame delivered again) is not recorded again.
            var later = swing("e1", 0, 1)
            later.queueEntry = 2
            answer = try await store.record([later], by: a)
            #expect(answer.recorded.isEmpty && !answer.admits(later), "recorded twice")
            // The same entry tried again (its first answer lost): this run's own record, admitted.
            answer = try await store.record([swing("e1", 0, 1), swing("e2", 1, 1)], by: a)
            #expect(answer.admits(swing("e1", 0, 1)) && answer.admits(swing("e2", 1, 1)), "a retry of a committed statement was refused: \(answer)")
            // A stale epoch, another run of the name, another instance: nothing recorded.
            #expect(!(try await store.record([swing("e3", 0, 0)], by: a)).admits(swing("e3", 0, 0)))
            let restarted = LeaseMember(name: "gw-a", incarnation: "a-2")
            let byRestart = try await store.record([swing("e3", 0, 1)], by: restarted)
            #expect(byRestart.held.isEmpty && byRestart.recorded.isEmpty, "a run that does not hold the lease recorded")
            // Hand-over: after the accept the old holder records nothing, the successor does.
            _ = try await store.heartbeat(b, ttl: 30)
            try await store.offer([0: 1], to: "gw-b", by: a)
            #expect(try await store.accept([0: 1], by: b, ttl: 30) == [0: 2])
            let late = try await store.record([swing("e4", 0, 1)], by: a)
            #expect(late.held.isEmpty && !late.admits(swing("e4", 0, 1)), "the old holder recorded after the hand-over")
            let successor = try await store.record([swing("e1", 0, 2), swing("e4", 0, 2)], by: b)
            #expect(successor.held == [0: 2])
            #expect(!successor.admits(swing("e1", 0, 2)) && successor.admits(swing("e4", 0, 2)), "\(successor)")
            #expect(try await store.pruneOutputs(olderThan: 3600) == 0)
            #expect(try await store.pruneOutputs(olderThan: 0) == 3)
        }
    }

    @Test("leave ends the leases at once (taken without waiting for the time to live); a restart under the same name that knows its earlier run ended takes that run's at once")
    func leaveAndRestart() async throws {
        try await TestPostgres.withStore { client in
            let store = PostgresLeaseStore(client)
            _ = try await store.heartbeat(a, ttl: 300)
            _ = try await store.heartbeat(b, ttl: 300)
            _ = try await store.take([0, 1], by: a, ttl: 300)
            // A restart on the earlier run's disk (it holds that run's journal, so that run ended).
            let again = LeaseMember(name: "gw-a", incarnation: "a-2", succeeds: "a-1")
            #expect(try await store.heartbeat(again, ttl: 300).isEmpty, "a new run renewed the earlier run's leases")
            #expect(try await store.take([0], by: b, ttl: 300).isEmpty)
            #expect(try await store.take([0], by: again, ttl: 300) == [0: 2])
            try await store.leave(again)
            #expect(try await store.view().instances["gw-a"] == nil)
            #expect(try await store.take([0], by: b, ttl: 300) == [0: 3])
            // The earlier run's other lease is still its own (it did not leave): it waits for expiry.
            #expect(try await store.take([1], by: b, ttl: 300).isEmpty)
        }
    }

    @Test("one live run per name: a second run is refused with the other run's name, start and renewal, and changes nothing; it registers once that row expired, then the first run is refused and takes nothing back")
    func oneLiveRunPerName() async throws {
        try await TestPostgres.withStore { client in
            let store = PostgresLeaseStore(client)
            let first = LeaseMember(name: "gw-a", incarnation: "a-1", clientID: "fleet-gw")
            _ = try await store.heartbeat(first, ttl: 1.5)
            #expect(try await store.take([0, 1], by: first, ttl: 1.5) == [0: 1, 1: 1])
            let second = LeaseMember(name: "gw-a", incarnation: "a-2", clientID: "fleet-gw")
            var refusal: InstanceNameInUse?
            do {
                _ = try await store.heartbeat(second, ttl: 30)
            } catch let error as InstanceNameInUse {
                refusal = error
            }
            let refused = try #require(refusal, "a second run under a live name was registered")
            #expect(refused.name == "gw-a" && refused.incarnation == "a-1" && refused.clientID == "fleet-gw")
            #expect(refused.expiresIn > 0 && refused.expiresIn <= 1.5)
            #expect(refused.startedAt.hasSuffix("Z") && refused.description.contains("run a-1"))
            // Nothing of the first run changed: its row, its leases and its renewals.
            #expect(try await store.take([0, 2], by: second, ttl: 30).isEmpty, "a refused run took a partition")
            #expect(try await store.heartbeat(first, ttl: 1.5) == [0: 1, 1: 1])
            // Renewed: the same run, a later renewal (how the ownership tells a live run from a dead one).
            do {
                _ = try await store.heartbeat(second, ttl: 30)
                Issue.record("registered while the first run renews")
            } catch let again as InstanceNameInUse {
                #expect(again.incarnation == "a-1" && again.renewedAt > refused.renewedAt)
            }
            // The first run stops renewing (frozen): once its row expired by the store's clock the
            // second registers and takes the name's leases at once under the next epochs.
            let deadline = ContinuousClock.now + .seconds(10)
            while try await store.view().instances["gw-a"] != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(try await store.heartbeat(second, ttl: 30).isEmpty)
            #expect(try await store.take([0, 1], by: second, ttl: 30) == [0: 2, 1: 2])
            // Thawed, the first run is refused, renews nothing and takes nothing back.
            await #expect(throws: InstanceNameInUse.self) { try await store.heartbeat(first, ttl: 1.5) }
            #expect(try await store.take([0, 1, 2], by: first, ttl: 1.5).isEmpty, "a replaced run took leases back")
            #expect(try await store.accept([0: 2], by: first, ttl: 1.5).isEmpty)
            #expect(try await store.heartbeat(second, ttl: 30) == [0: 2, 1: 2])
            // A third run that claims to succeed some other run is refused too: the proof names a run.
            let third = LeaseMember(name: "gw-a", incarnation: "a-3", succeeds: "a-1")
            await #expect(throws: InstanceNameInUse.self) { try await store.heartbeat(third, ttl: 30) }
        }
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
        try await TestPostgres.withStore { client in
            // A window long enough that a loaded machine's polling never outlasts it.
            let store = PostgresLeaseStore(client, adoptionWindow: 8)
            _ = try await store.heartbeat(a, ttl: 1)
            #expect(try await store.take([0, 1, 2], by: a, ttl: 1).count == 3)
            _ = try await store.heartbeat(b, ttl: 300)
            #expect(try await store.adopt(by: "gw-b", standIn: "a-s", ttl: 30) == nil, "a live instance was adopted")
            let deadline = ContinuousClock.now + .seconds(20)
            while try await store.view().instances["gw-a"] != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try await store.take([0], by: b, ttl: 300).isEmpty, "taken within the adoption window")
            #expect(try await store.adopt(by: "gw-b", standIn: "a-s", ttl: 30) == a)
            #expect(try await store.adopt(by: "gw-c", standIn: "a-t", ttl: 30) == nil, "adopted twice")
            #expect(try await store.take([0], by: b, ttl: 300).isEmpty, "an adopted instance's partition was taken")
            // A restart of the adopted name waits; its stand-in's first heartbeat holds the dead
            // run's leases under the next epochs (no change of holder, another run publishing),
            // and the dead run, were it alive, writes nothing more under them.
            let restart = LeaseMember(name: "gw-a", incarnation: "a-2")
            await #expect(throws: InstanceNameAdopted.self) { try await store.heartbeat(restart, ttl: 300) }
            #expect(try await store.take([0], by: restart, ttl: 300).isEmpty, "a restart took a leased partition of its adopted name")
            let standIn = LeaseMember(name: "gw-a", incarnation: "a-s")
            #expect(try await store.heartbeat(standIn, ttl: 300) == [0: 2, 1: 2, 2: 2])
            #expect(try await store.take([0, 1, 2], by: standIn, ttl: 300).isEmpty, "nothing left to take")
            let snapshot = LeasedSnapshot(device: "watch-adopted", partition: 0, epoch: 1, lastSeen: 1, snapshot: "{}")
            #expect(try await store.save([snapshot], by: a).isEmpty, "the adopted run wrote under the lease its stand-in holds")
            var continued = snapshot
            continued.epoch = 2
            #expect(try await store.save([continued], by: standIn) == ["watch-adopted"])
            await #expect(throws: InstanceNameAdopted.self) { try await store.heartbeat(restart, ttl: 300) }
            // The stand-in hands one over (the one change of holder) and leaves: the rest go at
            // once, the restart registers.
            try await store.offer([1: 2], to: "gw-b", by: standIn)
            #expect(try await store.accept([1: 2], by: b, ttl: 300) == [1: 3])
            try await store.leave(standIn)
            #expect(try await store.heartbeat(restart, ttl: 1).isEmpty)
            #expect(try await store.take([0], by: b, ttl: 300) == [0: 3])
            #expect(try await store.take([2], by: restart, ttl: 1) == [2: 3])
            // The restart dies unadopted: its lease is not taken within the window, then it is.
            let expiring = ContinuousClock.now
            while try await store.view().instances["gw-a"] != nil, ContinuousClock.now < expiring + .seconds(20) { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try await store.take([2], by: b, ttl: 300).isEmpty, "taken within the adoption window")
            var taken: [Int: Int64] = [:]
            while taken.isEmpty, ContinuousClock.now < expiring + .seconds(40) {
                taken = try await store.take([2], by: b, ttl: 300)
                if taken.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(taken == [2: 4], "taken once the window ended")
        }
    }

    @Test("a stand-in that dies with its adopter (registered or not yet) is adopted again within the window after its row and its adoption ran out: nobody takes its partitions meanwhile, the next stand-in holds them under the next epochs")
    func standInAdoptedAgain() async throws {
        try await TestPostgres.withStore { client in
            let store = PostgresLeaseStore(client, adoptionWindow: 8)
            let c = LeaseMember(name: "gw-c", incarnation: "c-1")
            _ = try await store.heartbeat(LeaseMember(name: "gw-a", incarnation: "a-1", clientID: "fleet"), ttl: 1)
            #expect(try await store.take([0, 1], by: LeaseMember(name: "gw-a", incarnation: "a-1"), ttl: 1).count == 2)
            _ = try await store.heartbeat(b, ttl: 1)
            _ = try await store.heartbeat(c, ttl: 300)
            // gw-a dies; gw-b adopts it and its stand-in registers (its heartbeats keep the adoption).
            var adopted: LeaseMember?
            let deadline = ContinuousClock.now + .seconds(20)
            while adopted == nil, ContinuousClock.now < deadline {
                _ = try await store.heartbeat(b, ttl: 1)
                adopted = try await store.adopt(by: "gw-b", standIn: "a-s1", ttl: 1)
                if adopted == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(adopted?.incarnation == "a-1" && adopted?.clientID == "fleet")
            let first = LeaseMember(name: "gw-a", incarnation: "a-s1", clientID: "fleet")
            #expect(try await store.heartbeat(first, ttl: 1) == [0: 2, 1: 2])
            #expect(try await store.adopt(by: "gw-c", standIn: "a-s2", ttl: 30) == nil, "a live stand-in was adopted")
            // gw-b dies with its stand-in: neither renews. Once the stand-in's row expired, gw-c
            // adopts the name again (not gw-b, dead too); nobody takes its partitions meanwhile.
            // (gw-b itself is adoptable too: each adoption gets its own stand-in.)
            var again: (dead: LeaseMember, standIn: String)?
            var attempt = 0
            while again == nil, ContinuousClock.now < deadline + .seconds(20) {
                _ = try await store.heartbeat(c, ttl: 300)
                #expect(try await store.take([0], by: c, ttl: 300).isEmpty, "a partition of a dead stand-in was taken within the window")
                attempt += 1
                if let dead = try await store.adopt(by: "gw-c", standIn: "a-s\(attempt + 1)", ttl: 30), dead.name == "gw-a" {
                    again = (dead, "a-s\(attempt + 1)")
                } else {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(again?.dead == first, "the dead stand-in's run, with the client id whose session it resumed")
            let second = LeaseMember(name: "gw-a", incarnation: again?.standIn ?? "?", clientID: "fleet")
            #expect(try await store.heartbeat(second, ttl: 30) == [0: 3, 1: 3])
            #expect(try await store.adopt(by: "gw-c", standIn: "a-x", ttl: 30).map(\.name) != "gw-a", "adopted twice")

            // An adopter that dies before its stand-in registered: the leases already carry the
            // stand-in's run, the row the dead run's. Once the adoption ran out, within the
            // window, the name is adopted again and the next stand-in holds those leases.
            let d = LeaseMember(name: "gw-d", incarnation: "d-1", clientID: "fleet")
            _ = try await store.heartbeat(d, ttl: 1)
            #expect(try await store.take([5], by: d, ttl: 1) == [5: 1])
            var lapsing: LeaseMember?
            while lapsing == nil, ContinuousClock.now < deadline + .seconds(40) {
                _ = try await store.heartbeat(c, ttl: 300)
                if let dead = try await store.adopt(by: "gw-c", standIn: "d-s1", ttl: 1), dead.name == "gw-d" { lapsing = dead } else { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(lapsing == d)
            var readopted: LeaseMember?
            while readopted == nil, ContinuousClock.now < deadline + .seconds(50) {
                _ = try await store.heartbeat(c, ttl: 300)
                #expect(try await store.take([5], by: c, ttl: 300).isEmpty, "a lease of a lapsed adoption was taken within the window")
                if let dead = try await store.adopt(by: "gw-c", standIn: "d-s2", ttl: 30), dead.name == "gw-d" { readopted = dead } else { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(readopted == d)
            #expect(try await store.heartbeat(LeaseMember(name: "gw-d", incarnation: "d-s2", clientID: "fleet"), ttl: 30) == [5: 3])
        }
    }

    @Test("after a store outage that let every row run out, the first instance back adopts nobody (its own row was not live when the others' expired); a death while it is live is adopted")
    func noAdoptionAfterOutage() async throws {
        try await TestPostgres.withStore { client in
            let store = PostgresLeaseStore(client, adoptionWindow: 8)
            let c = LeaseMember(name: "gw-c", incarnation: "c-1")
            // Both rows run out together, as in an outage longer than the lease.
            _ = try await store.heartbeat(a, ttl: 1)
            _ = try await store.heartbeat(b, ttl: 1)
            let deadline = ContinuousClock.now + .seconds(20)
            while try await !store.view().instances.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            // b is back first: a is within its adoption window, but b was not live when it expired.
            _ = try await store.heartbeat(b, ttl: 300)
            #expect(try await store.adopt(by: "gw-b", standIn: "a-s", ttl: 30) == nil, "a live instance taken for dead after the outage was adopted")
            #expect(try await store.adopt(by: "gw-a", standIn: "b-s", ttl: 30) == nil, "an adopter whose own row expired adopted")
            _ = try await store.heartbeat(a, ttl: 300)
            // A death while b is live: adopted.
            _ = try await store.heartbeat(c, ttl: 1)
            while try await store.view().instances["gw-c"] != nil, ContinuousClock.now < deadline + .seconds(20) { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try await store.adopt(by: "gw-b", standIn: "c-s", ttl: 30) == c)
        }
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
