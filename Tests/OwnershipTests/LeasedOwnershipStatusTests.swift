import GatewayTime
import Locking
import Logging
import Ownership
import TelemetryCore
import Testing

/// The ownership's status as a stream (``OwnershipPort/statusUpdates()``), and the waits built on
/// it: ``OwnershipPort/ready()`` and ``OwnershipPort/confirmed()``. On a manual clock, against a
/// scripted store.
@Suite("Leased ownership: the status as a stream")
struct LeasedOwnershipStatusTests {
    func ownership(_ store: ScriptedHeartbeats, clock: ManualGatewayClock) -> LeasedOwnership {
        LeasedOwnership(
            store: store, member: LeaseMember(name: "gw-a", incarnation: "run-1"), partitions: OwnershipPartitions(count: 16),
            timing: LeaseHolder.Timing(ttl: 6, margin: 1, warmup: 3), heartbeat: 1, clock: clock, logger: Logger(label: "status-stream"))
    }

    @Test("the status now first, then one per heartbeat with the heartbeats counted; ready after the first registered one", .timeLimit(.minutes(1)))
    func streamFollowsHeartbeats() async {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = ScriptedHeartbeats(answer: .unanswered)
        let ownership = ownership(store, clock: clock)
        var updates = ownership.statusUpdates().makeAsyncIterator()
        let start = await updates.next()
        #expect(start?.ready == false && start?.heartbeatsSent == 0 && start?.registeredThrough == 0)

        await ownership.beat()
        let failed = await updates.next()
        #expect(failed?.ready == false && failed?.heartbeatsSent == 1 && failed?.registeredThrough == 0 && failed?.failedHeartbeats == 1)

        store.answer(.leases([7: 3]))
        clock.advance(by: 1)
        await ownership.beat()
        let registered = await updates.next()
        #expect(registered?.ready == true && registered?.heartbeatsSent == 2 && registered?.registeredThrough == 2 && registered?.held == 1)
        await ownership.ready()

        store.answer(.adoptedBy("gw-b"))
        clock.advance(by: 1)
        await ownership.beat()
        let refused = await updates.next()
        #expect(refused?.adopted == true && refused?.heartbeatsSent == 3 && refused?.registeredThrough == 2 && refused?.held == 0)
    }

    @Test("confirmed() returns only after a heartbeat sent after the call registered the run: refused and failed ones do not count", .timeLimit(.minutes(1)))
    func confirmationWaitsForALaterRegistration() async {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = ScriptedHeartbeats(answer: .leases([7: 3]))
        let ownership = ownership(store, clock: clock)
        await ownership.beat()
        #expect(ownership.status.registeredThrough == 1)

        // However late the waiter subscribes, no heartbeat registers the run before the fourth.
        let confirmed = LockedState(false)
        let waiter = Task {
            await ownership.confirmed()
            confirmed.withLock { $0 = true }
        }
        store.answer(.adoptedBy("gw-b"))
        clock.advance(by: 1)
        await ownership.beat()
        store.answer(.unanswered)
        clock.advance(by: 1)
        await ownership.beat()
        for _ in 0..<100 { await Task.yield() }
        #expect(!confirmed.withLock { $0 }, "confirmed by a heartbeat that did not register the run")

        store.answer(.leases([7: 4]))
        clock.advance(by: 1)
        await ownership.beat()
        await waiter.value
        #expect(confirmed.withLock { $0 })
        #expect(ownership.status.registeredThrough == 4)
    }

    /// A port whose status stream is a fixed list, counting what its reader pulled.
    final class ScriptedStatuses: OwnershipPort {
        let statuses: [OwnershipStatus]
        let pulls = LockedState(0)
        init(_ statuses: [OwnershipStatus]) { self.statuses = statuses }
        var partitions: OwnershipPartitions { OwnershipPartitions() }
        func role(of device: some StringProtocol) -> DeviceRole { .none }
        func visible(_ messages: [OutboundMessage], receivedAs role: DeviceRole?) -> [OutboundMessage] { messages }
        var status: OwnershipStatus { statuses[0] }
        func statusUpdates() -> AsyncStream<OwnershipStatus> {
            let (statuses, pulls) = (statuses, pulls)
            return AsyncStream(unfolding: {
                let index = pulls.withLock { pulls in
                    defer { pulls += 1 }
                    return pulls
                }
                return index < statuses.count ? statuses[index] : nil
            })
        }
        func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void) {}
        func prepared(_ partitions: [Int], subscribed: @escaping @Sendable (Int) -> Bool) {}
        func run() async throws {}
        func leave(within seconds: Double) async {}
        func subscriberChanged(_ change: SubscriberConnectivity) {}
    }

    @Test("confirmed() reads past the status at the call and past later heartbeats that did not register the run; ready() stops at the first ready status")
    func waitsReadTheStream() async {
        func status(sent: Int, registered: Int, ready: Bool = true) -> OwnershipStatus {
            OwnershipStatus(held: 1, warming: 0, pastDeadline: false, failedHeartbeats: 0, ready: ready, heartbeatsSent: sent, registeredThrough: registered)
        }
        // At the call heartbeat 3 was sent and registered; 4 and 5 were refused; 6 registered.
        let port = ScriptedStatuses([status(sent: 3, registered: 3), status(sent: 4, registered: 3), status(sent: 5, registered: 3), status(sent: 6, registered: 6), status(sent: 7, registered: 7)])
        await port.confirmed()
        #expect(port.pulls.withLock { $0 } == 4, "confirmed() returned on the wrong status")

        let starting = ScriptedStatuses([status(sent: 0, registered: 0, ready: false), status(sent: 1, registered: 0, ready: false), status(sent: 2, registered: 2)])
        await starting.ready()
        #expect(starting.pulls.withLock { $0 } == 3, "ready() returned before the first ready status")
    }
}
