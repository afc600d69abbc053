import Ownership
import Testing

/// The lease state machine without a store or a clock: views and instants in, statements and
/// role changes out.
@Suite("Lease holder: takes, warm-ups, hand-overs and its own deadline")
struct LeaseHolderTests {
    let start = SuspendingClock.now
    let partitions = OwnershipPartitions(count: 16)
    let timing = LeaseHolder.Timing(ttl: 10, margin: 2, warmup: 3)

    func holder(_ name: String, incarnation: String = "run-1") -> LeaseHolder {
        LeaseHolder(member: LeaseMember(name: name, incarnation: incarnation), partitions: partitions, timing: timing)
    }

    func lease(_ partition: Int, _ owner: String?, epoch: Int64, incarnation: String = "run-1", expired: Bool = false, offeredTo: String? = nil)
        -> LeaseView.Lease
    {
        LeaseView.Lease(partition: partition, owner: owner, incarnation: owner == nil ? nil : incarnation, epoch: epoch, expired: expired, offeredTo: offeredTo)
    }

    func view(_ instances: [String: Bool], _ leases: [LeaseView.Lease]) -> LeaseView {
        var all = Dictionary(uniqueKeysWithValues: partitions.all.map { ($0, lease($0, nil, epoch: 0)) })
        for lease in leases { all[lease.partition] = lease }
        return LeaseView(instances: instances, leases: all)
    }

    func seconds(_ value: Double) -> Duration { .nanoseconds(Int64(value * 1e9)) }

    @Test("alone: every partition nobody holds is taken; taking makes gains under the store's epochs")
    func aloneTakesEverything() {
        var a = holder("gw-a")
        let plan = a.plan(view(["gw-a": false], []), at: start)
        #expect(plan.take == Array(partitions.all))
        #expect(plan.offers.isEmpty && plan.accept.isEmpty && plan.changes.isEmpty)
        let changes = a.took([3: 7, 1: 1])
        #expect(changes == [.gained(partition: 1, epoch: 1), .gained(partition: 3, epoch: 7)])
        #expect(a.held == [1: 1, 3: 7])
    }

    @Test("a live holder's partition is never taken: the assigned instance warms up, and accepts only once offered and warmed for `warmup` after its devices were listed and subscribed")
    func liveHolderHandsOver() {
        var b = holder("gw-b")
        let assignment = PartitionAssignment(partitions: partitions, instances: ["gw-a", "gw-b"])
        let mine = assignment.partitions(of: "gw-b")
        #expect(!mine.isEmpty)
        let held = partitions.all.map { lease($0, "gw-a", epoch: 4) }
        var plan = b.plan(view(["gw-a": false, "gw-b": false], held), at: start)
        #expect(plan.take.isEmpty)
        #expect(plan.accept.isEmpty)
        #expect(plan.changes == mine.map { .warming(partition: $0) })
        b.prepared(mine, at: start)
        // Offered, but the warm-up has not lasted `warmup` yet.
        let offered = partitions.all.map { lease($0, "gw-a", epoch: 4, offeredTo: mine.contains($0) ? "gw-b" : nil) }
        plan = b.plan(view(["gw-a": false, "gw-b": false], offered), at: start + seconds(2.9))
        #expect(plan.accept.isEmpty && plan.changes.isEmpty)
        plan = b.plan(view(["gw-a": false, "gw-b": false], offered), at: start + seconds(3))
        #expect(plan.accept == Dictionary(uniqueKeysWithValues: mine.map { ($0, Int64(4)) }))
        // Warmed but not offered: nothing is taken from the live holder.
        var c = holder("gw-b")
        _ = c.plan(view(["gw-a": false, "gw-b": false], held), at: start)
        c.prepared(mine, at: start)
        plan = c.plan(view(["gw-a": false, "gw-b": false], held), at: start + seconds(60))
        #expect(plan.accept.isEmpty && plan.take.isEmpty)
    }

    @Test("a warm-up whose devices were never reported listed and subscribed is not accepted, however long offered; reported late, it is accepted `warmup` after the report; a report for a partition not warming is ignored")
    func acceptsOnlyPrepared() {
        var b = holder("gw-b")
        let mine = PartitionAssignment(partitions: partitions, instances: ["gw-a", "gw-b"]).partitions(of: "gw-b")
        let others = partitions.all.filter { !mine.contains($0) }
        let instances = ["gw-a": false, "gw-b": false]
        b.prepared(others, at: start)
        #expect(b.prepared.isEmpty, "nothing warming yet")
        _ = b.plan(view(instances, partitions.all.map { lease($0, "gw-a", epoch: 4) }), at: start)
        let offered = view(instances, partitions.all.map { lease($0, "gw-a", epoch: 4, offeredTo: mine.contains($0) ? "gw-b" : nil) })
        #expect(b.plan(offered, at: start + seconds(60)).accept.isEmpty, "the store was away: no listing, no accept")
        let late = Array(mine.prefix(1))
        b.prepared(late + others, at: start + seconds(60))
        #expect(Set(b.prepared.keys) == Set(late))
        #expect(b.plan(offered, at: start + seconds(62.9)).accept.isEmpty)
        #expect(b.plan(offered, at: start + seconds(63)).accept == [late[0]: 4])
        // Taken: the report goes with the warm-up.
        _ = b.took([late[0]: 5])
        #expect(b.prepared.isEmpty && b.warming[late[0]] == nil)
    }

    @Test("the holder offers what the assignment gives another live instance, once per successor, and keeps what it gives nobody")
    func holderOffers() {
        var a = holder("gw-a")
        _ = a.took(Dictionary(uniqueKeysWithValues: partitions.all.map { ($0, Int64(2)) }))
        let theirs = PartitionAssignment(partitions: partitions, instances: ["gw-a", "gw-b"]).partitions(of: "gw-b")
        var plan = a.plan(view(["gw-a": false, "gw-b": false], partitions.all.map { lease($0, "gw-a", epoch: 2) }), at: start)
        #expect(plan.offers == ["gw-b": Dictionary(uniqueKeysWithValues: theirs.map { ($0, Int64(2)) })])
        plan = a.plan(
            view(["gw-a": false, "gw-b": false], partitions.all.map { lease($0, "gw-a", epoch: 2, offeredTo: theirs.contains($0) ? "gw-b" : nil) }),
            at: start)
        #expect(plan.offers.isEmpty, "an offer already made is not made again")
        // Draining and alone: nobody to give to, so everything is kept.
        plan = a.plan(view(["gw-a": true], partitions.all.map { lease($0, "gw-a", epoch: 2) }), at: start)
        #expect(plan.offers.isEmpty && plan.take.isEmpty)
        // Draining beside gw-b: everything is offered to it.
        plan = a.plan(view(["gw-a": true, "gw-b": false], partitions.all.map { lease($0, "gw-a", epoch: 2) }), at: start)
        #expect(plan.offers["gw-b"]?.count == partitions.count)
    }

    @Test("expired leases and an earlier run's leases are taken at once; an unexpired lease of a dead holder is waited for, warming")
    func expiredAndEarlierRuns() {
        var a = holder("gw-a", incarnation: "run-2")
        let leases = [
            lease(0, "gw-x", epoch: 5, expired: true),
            lease(1, "gw-a", epoch: 6, incarnation: "run-1"),
            lease(2, "gw-x", epoch: 7),
        ]
        let plan = a.plan(view(["gw-a": false], leases), at: start)
        #expect(plan.take.contains(0) && plan.take.contains(1))
        #expect(!plan.take.contains(2))
        #expect(plan.changes == [.warming(partition: 2)])
    }

    @Test("a heartbeat's answer: a partition missing from it is lost, one unknown is gained; the deadline is send time + ttl − margin")
    func renewalAndDeadline() {
        var a = holder("gw-a")
        #expect(!a.isPastDeadline(at: start))
        _ = a.took([0: 1, 1: 1, 2: 1])
        #expect(a.isPastDeadline(at: start), "holding leases without a heartbeat that reached the store")
        let changes = a.renewed([0: 1, 2: 1, 5: 3], sentAt: start, answeredAt: start)
        #expect(changes == [.lost(partition: 1), .gained(partition: 5, epoch: 3)])
        #expect(a.held == [0: 1, 2: 1, 5: 3])
        #expect(!a.isPastDeadline(at: start + seconds(7.99)))
        #expect(a.isPastDeadline(at: start + seconds(8)))
        #expect(a.renewed([0: 1, 2: 1, 5: 3], sentAt: start + seconds(5), answeredAt: start + seconds(5)).isEmpty)
        #expect(!a.isPastDeadline(at: start + seconds(12.9)))
        #expect(a.left() == [.lost(partition: 0), .lost(partition: 2), .lost(partition: 5)])
        #expect(a.held.isEmpty)
    }

    @Test("a warm-up the assignment no longer wants is abandoned (lost), and a draining instance is assigned nothing")
    func warmupAbandoned() {
        var b = holder("gw-b")
        let held = partitions.all.map { lease($0, "gw-a", epoch: 1) }
        let first = b.plan(view(["gw-a": false, "gw-b": false], held), at: start)
        #expect(!first.changes.isEmpty)
        let abandoned = b.plan(view(["gw-a": false, "gw-b": true], held), at: start + seconds(1))
        #expect(abandoned.changes == first.changes.map { if case .warming(let p) = $0 { .lost(partition: p) } else { $0 } })
        #expect(b.warming.isEmpty)
    }

    @Test("back from a heartbeat gap past its deadline: for one ttl it takes no expired partition of another instance (they renew theirs), then it does; without a gap it takes them at once")
    func quietAfterAGap() {
        var a = holder("gw-a")
        let mine = PartitionAssignment(partitions: partitions, instances: ["gw-a", "gw-b"]).partitions(of: "gw-a")
        _ = a.renewed([:], sentAt: start, answeredAt: start)
        _ = a.took(Dictionary(uniqueKeysWithValues: mine.map { ($0, Int64(1)) }))
        // A full store outage: the next answered heartbeat is sent past the deadline (8 s); every
        // row ran out, gw-b's too, so gw-a sees itself alone.
        let back = start + seconds(20)
        _ = a.renewed(Dictionary(uniqueKeysWithValues: mine.map { ($0, Int64(1)) }), sentAt: back, answeredAt: back)
        #expect(a.quietUntil == back + seconds(10))
        let expired = partitions.all.map { lease($0, mine.contains($0) ? "gw-a" : "gw-b", epoch: 1, expired: true) }
        let alone = view(["gw-a": false], expired)
        #expect(a.plan(alone, at: back + seconds(0.5)).take.isEmpty, "gw-b's expired partitions wait while gw-b may renew them")
        #expect(a.plan(alone, at: back + seconds(9.9)).take.isEmpty)
        #expect(Set(a.plan(alone, at: back + seconds(10)).take) == Set(partitions.all).subtracting(mine), "gw-b did not come back: taken")
        // Partitions gw-b gave up (a graceful stop) are taken at once, quiet or not.
        var released = expired.map { lease in
            var lease = lease
            lease.released = lease.owner == "gw-b"
            return lease
        }
        released.sort { $0.partition < $1.partition }
        #expect(Set(a.plan(view(["gw-a": false], released), at: back + seconds(0.5)).take) == Set(partitions.all).subtracting(mine))
        // A partition nobody held is taken at once, gap or not.
        var c = holder("gw-c")
        _ = c.renewed([:], sentAt: start, answeredAt: start)
        _ = c.renewed([:], sentAt: start + seconds(20), answeredAt: start + seconds(20))
        #expect(c.plan(view(["gw-c": false], []), at: start + seconds(20)).take == Array(partitions.all))
        // No gap (heartbeats within the deadline): another's expired partition is taken at once.
        var b = holder("gw-b")
        _ = b.renewed([:], sentAt: start, answeredAt: start)
        _ = b.renewed([:], sentAt: start + seconds(7.9), answeredAt: start + seconds(7.9))
        #expect(b.quietUntil == nil)
        // Sent before the deadline but answered past it (it waited for the store): a gap all the same.
        var d = holder("gw-d")
        _ = d.renewed([:], sentAt: start, answeredAt: start)
        _ = d.renewed([:], sentAt: start + seconds(7), answeredAt: start + seconds(16))
        #expect(d.quietUntil == start + seconds(26))
        #expect(b.plan(view(["gw-b": false], partitions.all.map { lease($0, "gw-a", epoch: 1, expired: true) }), at: start + seconds(8)).take == Array(partitions.all))
    }
}
