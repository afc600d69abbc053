import GatewayTime
import Locking
import Logging
import Ownership
import TelemetryCore
import Testing

/// A run whose name the store says another instance adopted: it holds nothing, and its
/// subscriber may not take its broker session back (the stand-in holds it) until the store
/// registers the run again. On a manual clock, against a scripted store.
@Suite("Leased ownership: a run whose name was adopted")
struct LeasedOwnershipAdoptionTests {
    let timing = LeaseHolder.Timing(ttl: 6, margin: 1, warmup: 3)

    func ownership(_ store: ScriptedHeartbeats, clock: ManualGatewayClock) -> LeasedOwnership {
        LeasedOwnership(
            store: store, member: LeaseMember(name: "gw-a", incarnation: "run-1"), partitions: OwnershipPartitions(count: 16), timing: timing,
            heartbeat: 1, clock: clock, logger: Logger(label: "adopted-run"))
    }

    @Test("refused past its deadline: it lets every partition go and keeps its session held until a heartbeat registers it")
    func refusalKeepsTheHold() async {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = ScriptedHeartbeats(answer: .leases([7: 3]))
        let ownership = ownership(store, clock: clock)
        await ownership.beat()
        #expect(ownership.held == [7: 3])
        #expect(ownership.status.mayResumeSession)

        // Cut from the store past its deadline (6 − 1 s after the last answered heartbeat).
        store.answer(.unanswered)
        clock.advance(by: 5.5)
        await ownership.beat()
        #expect(ownership.status.pastDeadline)
        #expect(!ownership.status.mayResumeSession)

        // Back on the store: another instance adopted the name meanwhile.
        store.answer(.adoptedBy("gw-b"))
        clock.advance(by: 1)
        await ownership.beat()
        #expect(ownership.held.isEmpty, "an adopted run holds nothing")
        #expect(ownership.status.adopted)
        #expect(!ownership.status.mayResumeSession, "the refusal renewed nothing: the subscriber keeps holding its reconnection")
        clock.advance(by: 10)
        await ownership.beat()
        #expect(!ownership.status.mayResumeSession, "still refused, still held")

        // The stand-in has left: the store registers the run again.
        store.answer(.leases([:]))
        clock.advance(by: 1)
        await ownership.beat()
        #expect(!ownership.status.adopted)
        #expect(ownership.status.mayResumeSession)
    }

    @Test("a subscriber that cannot reach the broker for half a lease time stops the renewals (the store takes the run for dead and adopts it); its session stays resumable until the adoption is read, then held; reconnected before, it renews again")
    func brokerUnreachableWithholdsRenewals() async {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = ScriptedHeartbeats(answer: .leases([7: 3]))
        let ownership = ownership(store, clock: clock)
        ownership.subscriberChanged(.connected)
        await ownership.step()
        #expect(store.heartbeats == 1)

        // Down for less than half the lease time (6 s): renewals go on.
        ownership.subscriberChanged(.unreachable)
        clock.advance(by: 2.9)
        await ownership.step()
        #expect(store.heartbeats == 2)
        #expect(!ownership.status.withholdingRenewals)
        // Back, then down again: the time counts from the last loss.
        ownership.subscriberChanged(.connected)
        ownership.subscriberChanged(.unreachable)
        clock.advance(by: 2.9)
        await ownership.step()
        #expect(store.heartbeats == 3)

        // Down for half the lease time: no renewal, the session may still be resumed (the broker
        // is what it waits for), even past the deadline.
        clock.advance(by: 0.2)
        await ownership.step()
        #expect(store.heartbeats == 3, "a renewal went out while the broker was unreachable")
        #expect(ownership.status.withholdingRenewals)
        clock.advance(by: 5)
        await ownership.step()
        #expect(store.heartbeats == 3)
        #expect(ownership.status.pastDeadline)
        #expect(ownership.status.mayResumeSession)

        // Reconnected before anybody adopted it: it renews at once.
        ownership.subscriberChanged(.connected)
        await ownership.step()
        #expect(store.heartbeats == 4)
        #expect(!ownership.status.withholdingRenewals)
        #expect(ownership.held == [7: 3])

        // Down again, and adopted meanwhile: it reads the adoption (renewing nothing), lets
        // everything go, and its session is held; adopted, it heartbeats to learn when the stand-in left.
        ownership.subscriberChanged(.unreachable)
        clock.advance(by: 3.5)
        store.answer(.adoptedBy("gw-b"))
        await ownership.step()
        #expect(store.heartbeats == 4)
        #expect(ownership.status.adopted)
        #expect(ownership.held.isEmpty)
        #expect(!ownership.status.mayResumeSession)
        await ownership.step()
        #expect(store.heartbeats == 5, "an adopted run heartbeats to learn when the stand-in has left")
        store.answer(.leases([:]))
        await ownership.step()
        #expect(!ownership.status.adopted)
    }

    @Test("a run holding nothing whose subscriber cannot reach the broker stands aside: after half a lease time it heartbeats as draining (left out of the assignment), never withholds its renewals into an adoption, and joins again once connected")
    func standsAsideHoldingNothing() async {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = ScriptedHeartbeats(answer: .leases([:]))
        let ownership = ownership(store, clock: clock)
        await ownership.step()
        #expect(store.drainingFlags == [false])
        // A joiner whose link is down from the start: not aside before half the lease time (6 s).
        ownership.subscriberChanged(.unreachable)
        clock.advance(by: 2.9)
        await ownership.step()
        #expect(store.drainingFlags.last == false)
        clock.advance(by: 0.2)
        await ownership.step()
        #expect(store.drainingFlags.last == true, "holding nothing and unreachable, it still took part in the assignment")
        #expect(!ownership.status.withholdingRenewals)
        #expect(ownership.status.standingAside && !ownership.status.mayAdopt, "a run whose stand-in could not reach the broker may adopt")
        // Long past the lease time: it keeps renewing its row (nobody adopts it), as draining.
        for _ in 0..<10 {
            clock.advance(by: 1)
            await ownership.step()
        }
        #expect(store.heartbeats == 13, "a run holding nothing withheld its renewals")
        #expect(store.drainingFlags.suffix(10).allSatisfy { $0 })
        #expect(!ownership.status.pastDeadline && !ownership.status.adopted)
        // Connected: it joins the assignment again.
        ownership.subscriberChanged(.connected)
        await ownership.step()
        #expect(store.drainingFlags.last == false)
        #expect(!ownership.status.standingAside && ownership.status.mayAdopt)
    }

    @Test("a restart refused at its first heartbeat (never registered, holding nothing) holds its session too")
    func refusedRestartHolds() async {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = ScriptedHeartbeats(answer: .adoptedBy("gw-b"))
        let ownership = ownership(store, clock: clock)
        await ownership.beat()
        #expect(!ownership.status.pastDeadline, "no deadline before a first lease")
        #expect(ownership.status.adopted)
        #expect(!ownership.status.mayResumeSession)
    }
}

@Suite("Leased ownership: what a stand-in publishes")
struct StandInStampTests {
    @Test("a stand-in's outputs carry its adopter beside the name and epoch it continues; re-stamped, a message carries only the publisher's")
    func standInStamp() {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        func ownership(_ incarnation: String, standInOf: String?) -> LeasedOwnership {
            LeasedOwnership(
                store: ScriptedHeartbeats(answer: .leases([:])), member: LeaseMember(name: "gw-a", incarnation: incarnation),
                timing: LeaseHolder.Timing(ttl: 6, margin: 1, warmup: 3), heartbeat: 1, standInOf: standInOf, clock: clock, logger: Logger(label: "stamp"))
        }
        let message = OutboundMessage(.connection, of: DeviceID("watch-1")!, in: TopicScheme(), payload: Array("{}".utf8))
        let standIn = ownership("a-s", standInOf: "gw-b")
        let stamped = standIn.visible([message], receivedAs: .owner(epoch: 4))
        #expect(stamped.first?.userProperties.map { "\($0.name)=\($0.value)" } == ["instance=gw-a", "epoch=4", "stand-in=gw-b"])
        let run = ownership("a-2", standInOf: nil)
        #expect(run.visible(stamped, receivedAs: .owner(epoch: 5)).first?.userProperties.map { "\($0.name)=\($0.value)" } == ["instance=gw-a", "epoch=5"])
    }
}

/// A lease store whose heartbeat answers as the test says; every other statement finds nothing
/// to do, and its view shows gw-a alone.
final class ScriptedHeartbeats: LeaseStoring {
    enum Answer {
        case leases([Int: Int64])
        case adoptedBy(String)
        case unanswered
    }

    struct Unreachable: Error {}

    private let current: LockedState<Answer>
    private let beats = LockedState(0)
    private let draining = LockedState<[Bool]>([])

    init(answer: Answer) { current = LockedState(answer) }

    func answer(_ answer: Answer) { current.withLock { $0 = answer } }

    /// Heartbeats asked so far.
    var heartbeats: Int { beats.withLock { $0 } }

    /// The `draining` flag of every heartbeat asked, in order.
    var drainingFlags: [Bool] { draining.withLock { $0 } }

    func heartbeat(_ member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        beats.withLock { $0 += 1 }
        draining.withLock { $0.append(member.draining) }
        switch current.withLock({ $0 }) {
        case .leases(let leases): return leases
        case .adoptedBy(let adopter): throw InstanceNameAdopted(adopter: adopter)
        case .unanswered: throw Unreachable()
        }
    }

    func view() async throws -> LeaseView { LeaseView(instances: ["gw-a": false], leases: [:]) }
    func take(_ partitions: [Int], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] { [:] }
    func offer(_ partitions: [Int: Int64], to successor: String, by member: LeaseMember) async throws {}
    func accept(_ partitions: [Int: Int64], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] { [:] }
    func leave(_ member: LeaseMember) async throws {}
    func adopt(by adopter: String, standIn: String, ttl: Double) async throws -> LeaseMember? { nil }
    func adopter(of member: LeaseMember) async throws -> String? {
        switch current.withLock({ $0 }) {
        case .adoptedBy(let adopter): return adopter
        case .unanswered: throw Unreachable()
        case .leases: return nil
        }
    }
}
