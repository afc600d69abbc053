import CoreMetrics
import Locking
import Logging
import MQTTTransport
import Ownership
import Testing

@testable import GatewayTime
@testable import TelemetryCore
@testable import TelemetryGateway

/// The ownership service without a store or a broker: a take-over of many partitions is listed
/// from the store in one statement per kind, and every change still reaches the subscriptions
/// and the workers in the port's order, with its own partition's devices and retained messages.
@Suite("Ownership service: changes applied in batches")
struct OwnershipServiceTests {
    /// A port whose heartbeat reports a scripted burst of changes, then waits to be cancelled.
    final class ScriptedOwnership: OwnershipPort {
        let changes: [OwnershipChange]
        private let observer = LockedState<(@Sendable (OwnershipChange) -> Void)?>(nil)
        init(_ changes: [OwnershipChange]) { self.changes = changes }
        var partitions: OwnershipPartitions { OwnershipPartitions() }
        func role(of device: some StringProtocol) -> DeviceRole { .none }
        func visible(_ messages: [OutboundMessage]) -> [OutboundMessage] { messages }
        func visible(_ messages: [OutboundMessage], receivedAs role: DeviceRole) -> [OutboundMessage] { messages }
        var status: OwnershipStatus { OwnershipStatus(held: 0, warming: 0, pastDeadline: false, failedHeartbeats: 0) }
        func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void) { self.observer.withLock { $0 = observer } }
        func ready() async {}
        func run() async throws {
            let notify = observer.withLock { $0 }
            for change in changes { notify?(change) }
            while !Task.isCancelled { try await Task.sleep(for: .seconds(60)) }
        }
        func leave(within seconds: Double) async {}
    }

    /// Records what the subscriptions are told, in order.
    final class RecordingSubscriptions: InboundSubscriptions {
        let told = LockedState<[(OwnershipChange, Int)]>([])
        var filterIdentifier: Int? { nil }
        func attach(_ connection: any InboundConnection) {}
        func isDuplicate(topic: String, identifiers: [Int]) -> Bool { false }
        func hold(_ frame: HeldDiscoveryFrame, device: Substring) -> Bool { false }
        func connectionEvent(_ event: MQTTClientEvent) -> [HeldDiscoveryFrame] { [] }
        func partitionChanged(_ change: OwnershipChange, devices: [DeviceID]) { told.withLock { $0.append((change, devices.count)) } }
    }

    @Test("300 partitions gained and one lost: one device listing and one retained listing; each change in order, with its partition's devices and retained messages")
    func batchedListing() async throws {
        let partitions = OwnershipPartitions()
        let devices = (0..<3_000).map { DeviceID("batch-\($0)")! }
        let gained = Array(Set(devices.prefix(600).map { partitions.partition(of: $0.rawValue) })).sorted().prefix(300)
        let changes = gained.map { OwnershipChange.gained(partition: $0, epoch: 1) } + [.lost(partition: gained.first!)]
        let calls = LockedState<[String]>([])
        let clock = SystemGatewayClock()
        let queue = HandoffQueue<WorkItem>(capacity: 10_000, clock: clock)
        let subscriptions = RecordingSubscriptions()
        let service = OwnershipService(
            ownership: ScriptedOwnership(changes),
            listDevices: { asked in
                calls.withLock { $0.append("devices \(asked.count)") }
                return devices.filter { asked.contains(partitions.partition(of: $0.rawValue)) }
            },
            listRetained: { asked in
                calls.withLock { $0.append("retained \(asked.count)") }
                return devices.filter { asked.contains(partitions.partition(of: $0.rawValue)) }.map {
                    OutboundMessage(.connection, of: $0, in: TopicScheme(), payload: Array("{}".utf8))
                }
            },
            subscriptions: subscriptions, queues: [queue], metrics: OwnershipMetrics(factory: NOOPMetricsHandler.instance), drainSeconds: 0, clock: clock,
            logger: Logger(label: "ownership-service-test"))
        let running = Task { try await service.run() }
        var items: [WorkItem] = []
        while items.count < changes.count, let batch = await queue.next() { items += batch }
        running.cancel()
        _ = await running.result

        // The first change may come alone (the applier woke for it); the rest come as one batch.
        let made = calls.withLock { $0 }
        #expect(made.count <= 4, "one listing per kind and batch: \(made)")
        var seen: [Int] = []
        for item in items {
            guard case .ownership(let change, let listed, let retained) = item else { continue }
            switch change {
            case .gained(let partition, _):
                seen.append(partition)
                let expected = devices.filter { partitions.partition(of: $0.rawValue) == partition }
                #expect(Set(listed) == Set(expected) && Set(retained.compactMap(\.device)) == Set(expected), "partition \(partition)")
            case .lost(let partition):
                #expect(partition == gained.first && listed.isEmpty && retained.isEmpty && seen.count == gained.count, "the loss comes last, alone")
            case .warming: Issue.record("no warming was scripted")
            }
        }
        #expect(seen == Array(gained), "the workers get the changes in the port's order")
        let told = subscriptions.told.withLock { $0 }
        // Twice per change: at once in the observer (no devices), then with the listing.
        #expect(told.count == 2 * changes.count)
    }
}
