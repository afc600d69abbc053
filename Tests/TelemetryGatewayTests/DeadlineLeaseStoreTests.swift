import BrokerTestSupport
import Foundation
import GatewayTime
import Locking
import Logging
import Ownership
import Testing

@testable import TelemetryGateway

/// A heartbeat the store never answers (a connection that hangs after an outage) fails once the
/// lease time passed on the gateway's clock, and the next heartbeat goes through.
@Suite struct DeadlineLeaseStoreTests {
    @Test("a hung heartbeat fails after the lease time, not before; the next one renews")
    func hungHeartbeatFailsAfterTheLeaseTime() async throws {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = FirstHeartbeatHangs(member: "gw-a", partition: 7, epoch: 3)
        let ownership = LeasedOwnership(
            store: DeadlineLeaseStore(base: store, seconds: 6, clock: clock), member: LeaseMember(name: "gw-a", incarnation: "run-1"),
            timing: LeaseHolder.Timing(ttl: 6, margin: 1, warmup: 3), heartbeat: 1, clock: clock, logger: Logger(label: "deadline-lease"))
        let finished = LockedState(false)
        let beating = Task {
            await ownership.beat()
            finished.withLock { $0 = true }
        }
        let asleep = ContinuousClock.now + .seconds(60)  // generous: parallel suites on two cores can keep new tasks waiting
        while store.hung.count == 0 || clock.sleepers == 0 {
            guard ContinuousClock.now < asleep else {
                Issue.record("the heartbeat never reached the store")
                beating.cancel()
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        clock.advance(by: 5.9)
        #expect(!finished.withLock { $0 }, "not failed before the lease time")
        #expect(ownership.status.failedHeartbeats == 0)
        clock.advance(by: 0.1)
        await beating.value
        #expect(ownership.status.failedHeartbeats == 1, "the hung heartbeat counts as failed")
        #expect(ownership.held.isEmpty)

        await ownership.beat()
        #expect(store.heartbeats == 2)
        #expect(ownership.held == [7: 3], "the next heartbeat renews")
        #expect(ownership.status.failedHeartbeats == 0)
    }
}

/// A lease store whose first heartbeat never answers; later ones renew one partition.
private final class FirstHeartbeatHangs: LeaseStoring {
    struct Unused: Error {}
    let hung = NeverAnsweringCalls()
    private let calls = LockedState(0)
    private let member: String
    private let partition: Int
    private let epoch: Int64

    init(member: String, partition: Int, epoch: Int64) {
        self.member = member
        self.partition = partition
        self.epoch = epoch
    }

    var heartbeats: Int { calls.withLock { $0 } }

    func heartbeat(_ member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        let call = calls.withLock {
            $0 += 1
            return $0
        }
        if call == 1 { return try await hung.hang() }
        return [partition: epoch]
    }

    func view() async throws -> LeaseView {
        LeaseView(
            instances: [member: false],
            leases: [partition: LeaseView.Lease(partition: partition, owner: member, incarnation: "run-1", epoch: epoch, expired: false)])
    }

    func take(_ partitions: [Int], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] { [:] }
    func offer(_ partitions: [Int: Int64], to successor: String, by member: LeaseMember) async throws { throw Unused() }
    func accept(_ partitions: [Int: Int64], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] { [:] }
    func leave(_ member: LeaseMember) async throws { throw Unused() }
    func adopt(by adopter: String, standIn: String, ttl: Double) async throws -> LeaseMember? { throw Unused() }
    func adopter(of member: LeaseMember) async throws -> String? { throw Unused() }
}
