import Ownership
import Testing

/// A lease store under the contract tests, with the clock it judges expiry by.
protocol LeaseStoreFixture: Sendable {
    associatedtype Store: LeaseStoring & OutputLedger
    /// The store under test, with `adoptionWindow` (one per test).
    func store(adoptionWindow: Double) -> Store
    /// The store's time, seconds.
    func now() async throws -> Double
    /// Lets the store's time pass until `condition` holds (PostgreSQL's clock runs by itself, so
    /// its fixture polls; the memory store's is moved in small steps), at most `seconds` of it.
    /// - Returns: whether `condition` came to hold.
    @discardableResult
    func pass(atMost seconds: Double, until condition: () async throws -> Bool) async throws -> Bool
    /// Writes a device snapshot under `member`'s lease of `partition` at `epoch`, where the store
    /// keeps snapshots: whether it was written; nil where it keeps none (the memory store).
    func writeSnapshot(device: String, partition: Int, epoch: Int64, by member: LeaseMember) async throws -> Bool?
}

/// The rules every ``LeaseStoring`` and ``OutputLedger`` keeps, each test written once and run
/// against PostgreSQL (`PostgresLeaseTests`) and the memory store (`InMemoryLeaseStoreTests`).
enum LeaseStoreContract {
    static let a = LeaseMember(name: "gw-a", incarnation: "a-1")
    static let b = LeaseMember(name: "gw-b", incarnation: "b-1")

    /// A live holder's lease is not taken; an expired one is, by the store's clock; renewal keeps
    /// an expired lease nobody took.
    static func expiry(_ fixture: some LeaseStoreFixture) async throws {
        let store = fixture.store(adoptionWindow: 0)
        _ = try await store.heartbeat(a, ttl: 1.5)
        // Registered (only the registered run of a name takes anything), live throughout.
        _ = try await store.heartbeat(b, ttl: 60)
        let taken = try await store.take([0, 1, 2], by: a, ttl: 1.5)
        #expect(taken == [0: 1, 1: 1, 2: 1])
        // The store's time before the renewal (read after it, a loaded machine's delay would
        // count against the lease): the lease runs to at least this + 1.5 s.
        let renewedAt = try await fixture.now()
        #expect(try await store.heartbeat(a, ttl: 1.5) == taken)
        #expect(try await store.take([0, 1, 2], by: b, ttl: 1.5).isEmpty, "a live holder's lease was taken")
        var view = try await store.view()
        #expect(view.instances == ["gw-a": false, "gw-b": false])
        #expect(view.leases[0] == LeaseView.Lease(partition: 0, owner: "gw-a", incarnation: "a-1", epoch: 1, expired: false))
        try await fixture.pass(atMost: 10) { try await store.view().leases[0]!.expired }
        #expect(try await fixture.now() - renewedAt >= 1.4)
        view = try await store.view()
        #expect(view.instances == ["gw-b": false], "the instance row expired with its leases")
        // Nobody took it: the holder's next heartbeat renews it under the same epoch (a store
        // outage moves nothing).
        #expect(try await store.heartbeat(a, ttl: 1.5) == [0: 1, 1: 1, 2: 1])
        #expect(try await store.take([0], by: b, ttl: 1.5).isEmpty)
        // Let it run out again; now another instance takes it under the next epoch.
        try await fixture.pass(atMost: 10) { try await store.view().leases[1]!.expired }
        #expect(try await store.take([1], by: b, ttl: 1.5) == [1: 2])
        #expect(try await store.heartbeat(a, ttl: 1.5) == [0: 1, 2: 1], "the holder learns of the loss at its next heartbeat")
    }

    /// Only an offered partition is accepted, by compare-and-set under the next epoch.
    static func handOver(_ fixture: some LeaseStoreFixture) async throws {
        let store = fixture.store(adoptionWindow: 0)
        _ = try await store.heartbeat(a, ttl: 30)
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
    }

    /// An output is recorded once, only by its partition's holder under the epoch it holds; a
    /// hand-over fences the old holder, a restart's new run too.
    static func outputLedger(_ fixture: some LeaseStoreFixture) async throws {
        let store = fixture.store(adoptionWindow: 0)
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
        let now = try await fixture.now()
        try await fixture.pass(atMost: 1) { try await fixture.now() > now }
        #expect(try await store.pruneOutputs(olderThan: 0) == 3)
    }

    /// Leave ends the leases at once (taken without waiting for the time to live); a restart
    /// under the same name that knows its earlier run ended takes that run's at once.
    static func leaveAndRestart(_ fixture: some LeaseStoreFixture) async throws {
        let store = fixture.store(adoptionWindow: 0)
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

    /// One live run per name: a second run is refused with the other run's name, start and
    /// renewal, and changes nothing; it registers once that row expired, then the first run is
    /// refused and takes nothing back.
    static func oneLiveRunPerName(_ fixture: some LeaseStoreFixture) async throws {
        let store = fixture.store(adoptionWindow: 0)
        let first = LeaseMember(name: "gw-a", incarnation: "a-1", session: "fleet-gw")
        _ = try await store.heartbeat(first, ttl: 1.5)
        #expect(try await store.take([0, 1], by: first, ttl: 1.5) == [0: 1, 1: 1])
        let second = LeaseMember(name: "gw-a", incarnation: "a-2", session: "fleet-gw")
        var refusal: InstanceNameInUse?
        do {
            _ = try await store.heartbeat(second, ttl: 30)
        } catch let error as InstanceNameInUse {
            refusal = error
        }
        let refused = try #require(refusal, "a second run under a live name was registered")
        #expect(refused.name == "gw-a" && refused.incarnation == "a-1" && refused.session == "fleet-gw")
        #expect(refused.expiresIn > 0 && refused.expiresIn <= 1.5)
        #expect(refused.startedAt.hasSuffix("Z") && refused.description.contains("run a-1"))
        // Nothing of the first run changed: its row, its leases and its renewals.
        #expect(try await store.take([0, 2], by: second, ttl: 30).isEmpty, "a refused run took a partition")
        // A later renewal (how the ownership tells a live run from a dead one).
        let renewed = try await fixture.now()
        try await fixture.pass(atMost: 1) { try await fixture.now() > renewed }
        #expect(try await store.heartbeat(first, ttl: 1.5) == [0: 1, 1: 1])
        do {
            _ = try await store.heartbeat(second, ttl: 30)
            Issue.record("registered while the first run renews")
        } catch let again as InstanceNameInUse {
            #expect(again.incarnation == "a-1" && again.renewedAt > refused.renewedAt)
        }
        // The first run stops renewing (frozen): once its row expired by the store's clock the
        // second registers and takes the name's leases at once under the next epochs.
        try await fixture.pass(atMost: 10) { try await store.view().instances["gw-a"] == nil }
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

    /// A dead instance is adopted once, within the window after its row expired: nobody else
    /// takes its partitions meanwhile, a restart of its name waits, its stand-in takes them at
    /// once; unadopted, they go after the window.
    static func adoption(_ fixture: some LeaseStoreFixture) async throws {
        // A window long enough that a loaded machine's polling never outlasts it.
        let store = fixture.store(adoptionWindow: 8)
        _ = try await store.heartbeat(a, ttl: 1)
        #expect(try await store.take([0, 1, 2], by: a, ttl: 1).count == 3)
        _ = try await store.heartbeat(b, ttl: 300)
        #expect(try await store.adopt(by: "gw-b", standIn: "a-s", ttl: 30) == nil, "a live instance was adopted")
        try await fixture.pass(atMost: 20) { try await store.view().instances["gw-a"] == nil }
        #expect(try await store.take([0], by: b, ttl: 300).isEmpty, "taken within the adoption window")
        #expect(try await store.adopt(by: "gw-b", standIn: "a-s", ttl: 30) == a)
        #expect(try await store.adopt(by: "gw-c", standIn: "a-t", ttl: 30) == nil, "adopted twice")
        #expect(try await store.take([0], by: b, ttl: 300).isEmpty, "an adopted instance's partition was taken")
        // A restart of the adopted name waits; its stand-in's first heartbeat holds the dead
        // run's leases under the next epochs (no change of holder, another run publishing), and
        // the dead run, were it alive, writes nothing more under them.
        let restart = LeaseMember(name: "gw-a", incarnation: "a-2")
        await #expect(throws: InstanceNameAdopted.self) { try await store.heartbeat(restart, ttl: 300) }
        #expect(try await store.take([0], by: restart, ttl: 300).isEmpty, "a restart took a leased partition of its adopted name")
        let standIn = LeaseMember(name: "gw-a", incarnation: "a-s")
        #expect(try await store.heartbeat(standIn, ttl: 300) == [0: 2, 1: 2, 2: 2])
        #expect(try await store.take([0, 1, 2], by: standIn, ttl: 300).isEmpty, "nothing left to take")
        if let written = try await fixture.writeSnapshot(device: "watch-adopted", partition: 0, epoch: 1, by: a) {
            #expect(!written, "the adopted run wrote under the lease its stand-in holds")
            #expect(try await fixture.writeSnapshot(device: "watch-adopted", partition: 0, epoch: 2, by: standIn) == true)
        }
        #expect(!(try await store.record([OutputKey(topic: "t", eventID: "e", partition: 0, epoch: 1)], by: a)).admits(
            OutputKey(topic: "t", eventID: "e", partition: 0, epoch: 1)), "the adopted run recorded an output")
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
        try await fixture.pass(atMost: 20) { try await store.view().instances["gw-a"] == nil }
        #expect(try await store.take([2], by: b, ttl: 300).isEmpty, "taken within the adoption window")
        var taken: [Int: Int64] = [:]
        try await fixture.pass(atMost: 40) {
            taken = try await store.take([2], by: b, ttl: 300)
            return !taken.isEmpty
        }
        #expect(taken == [2: 4], "taken once the window ended")
    }

    /// A stand-in that dies with its adopter (registered or not yet) is adopted again within the
    /// window after its row and its adoption ran out: nobody takes its partitions meanwhile, the
    /// next stand-in holds them under the next epochs.
    static func standInAdoptedAgain(_ fixture: some LeaseStoreFixture) async throws {
        let store = fixture.store(adoptionWindow: 8)
        let c = LeaseMember(name: "gw-c", incarnation: "c-1")
        _ = try await store.heartbeat(LeaseMember(name: "gw-a", incarnation: "a-1", session: "fleet"), ttl: 1)
        #expect(try await store.take([0, 1], by: LeaseMember(name: "gw-a", incarnation: "a-1"), ttl: 1).count == 2)
        _ = try await store.heartbeat(b, ttl: 1)
        _ = try await store.heartbeat(c, ttl: 300)
        // gw-a dies; gw-b adopts it and its stand-in registers (its heartbeats keep the adoption).
        var adopted: LeaseMember?
        try await fixture.pass(atMost: 20) {
            _ = try await store.heartbeat(b, ttl: 1)
            adopted = try await store.adopt(by: "gw-b", standIn: "a-s1", ttl: 1)
            return adopted != nil
        }
        #expect(adopted?.incarnation == "a-1" && adopted?.session == "fleet")
        let first = LeaseMember(name: "gw-a", incarnation: "a-s1", session: "fleet")
        #expect(try await store.heartbeat(first, ttl: 1) == [0: 2, 1: 2])
        #expect(try await store.adopt(by: "gw-c", standIn: "a-s2", ttl: 30) == nil, "a live stand-in was adopted")
        // gw-b dies with its stand-in: neither renews. Once the stand-in's row expired, gw-c
        // adopts the name again (not gw-b, dead too); nobody takes its partitions meanwhile.
        // (gw-b itself is adoptable too: each adoption gets its own stand-in.)
        var again: (dead: LeaseMember, standIn: String)?
        var attempt = 0
        try await fixture.pass(atMost: 20) {
            _ = try await store.heartbeat(c, ttl: 300)
            #expect(try await store.take([0], by: c, ttl: 300).isEmpty, "a partition of a dead stand-in was taken within the window")
            attempt += 1
            if let dead = try await store.adopt(by: "gw-c", standIn: "a-s\(attempt + 1)", ttl: 30), dead.name == "gw-a" {
                again = (dead, "a-s\(attempt + 1)")
            }
            return again != nil
        }
        #expect(again?.dead == first, "the dead stand-in's run, with the client id whose session it resumed")
        let second = LeaseMember(name: "gw-a", incarnation: again?.standIn ?? "?", session: "fleet")
        #expect(try await store.heartbeat(second, ttl: 30) == [0: 3, 1: 3])
        #expect(try await store.adopt(by: "gw-c", standIn: "a-x", ttl: 30).map(\.name) != "gw-a", "adopted twice")

        // An adopter that dies before its stand-in registered: the leases already carry the
        // stand-in's run, the row the dead run's. Once the adoption ran out, within the window,
        // the name is adopted again and the next stand-in holds those leases.
        let d = LeaseMember(name: "gw-d", incarnation: "d-1", session: "fleet")
        _ = try await store.heartbeat(d, ttl: 1)
        #expect(try await store.take([5], by: d, ttl: 1) == [5: 1])
        var lapsing: LeaseMember?
        try await fixture.pass(atMost: 20) {
            _ = try await store.heartbeat(c, ttl: 300)
            if let dead = try await store.adopt(by: "gw-c", standIn: "d-s1", ttl: 1), dead.name == "gw-d" { lapsing = dead }
            return lapsing != nil
        }
        #expect(lapsing == d)
        var readopted: LeaseMember?
        try await fixture.pass(atMost: 10) {
            _ = try await store.heartbeat(c, ttl: 300)
            #expect(try await store.take([5], by: c, ttl: 300).isEmpty, "a lease of a lapsed adoption was taken within the window")
            if let dead = try await store.adopt(by: "gw-c", standIn: "d-s2", ttl: 30), dead.name == "gw-d" { readopted = dead }
            return readopted != nil
        }
        #expect(readopted == d)
        #expect(try await store.heartbeat(LeaseMember(name: "gw-d", incarnation: "d-s2", session: "fleet"), ttl: 30) == [5: 3])
    }

    /// After a store outage that let every row run out, the first instance back adopts nobody
    /// (its own row was not live when the others' expired); a death while it is live is adopted.
    static func noAdoptionAfterOutage(_ fixture: some LeaseStoreFixture) async throws {
        let store = fixture.store(adoptionWindow: 8)
        let c = LeaseMember(name: "gw-c", incarnation: "c-1")
        // Both rows run out together, as in an outage longer than the lease.
        _ = try await store.heartbeat(a, ttl: 1)
        _ = try await store.heartbeat(b, ttl: 1)
        try await fixture.pass(atMost: 20) { try await store.view().instances.isEmpty }
        // b is back first: a is within its adoption window, but b was not live when it expired.
        _ = try await store.heartbeat(b, ttl: 300)
        #expect(try await store.adopt(by: "gw-b", standIn: "a-s", ttl: 30) == nil, "a live instance taken for dead after the outage was adopted")
        #expect(try await store.adopt(by: "gw-a", standIn: "b-s", ttl: 30) == nil, "an adopter whose own row expired adopted")
        _ = try await store.heartbeat(a, ttl: 300)
        // A death while b is live: adopted.
        _ = try await store.heartbeat(c, ttl: 1)
        try await fixture.pass(atMost: 20) { try await store.view().instances["gw-c"] == nil }
        #expect(try await store.adopt(by: "gw-b", standIn: "c-s", ttl: 30) == c)
    }
}
