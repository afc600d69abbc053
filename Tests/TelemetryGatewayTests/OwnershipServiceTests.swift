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
        /// The role of each partition (none for any other).
        let roles: [Int: DeviceRole]
        private let observer = LockedState<(@Sendable (OwnershipChange) -> Void)?>(nil)
        /// What ``prepared(_:subscribed:)`` was told, in order.
        let reported = LockedState<[[Int]]>([])
        init(_ changes: [OwnershipChange], roles: [Int: DeviceRole] = [:]) {
            self.changes = changes
            self.roles = roles
        }
        var partitions: OwnershipPartitions { OwnershipPartitions() }
        func role(of device: some StringProtocol) -> DeviceRole { roles[partitions.partition(of: device)] ?? .none }
        func visible(_ messages: [OutboundMessage], receivedAs role: DeviceRole?) -> [OutboundMessage] { messages }
        var status: OwnershipStatus { .sole }
        func statusUpdates() -> AsyncStream<OwnershipStatus> {
            AsyncStream { continuation in
                continuation.yield(.sole)
                continuation.finish()
            }
        }
        func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void) { self.observer.withLock { $0 = observer } }
        func prepared(_ partitions: [Int], subscribed: @escaping @Sendable (Int) -> Bool) {
            if !partitions.isEmpty { reported.withLock { $0.append(partitions) } }
        }
        func run() async throws {
            let notify = observer.withLock { $0 }
            for change in changes { notify?(change) }
            while !Task.isCancelled { try await Task.sleep(for: .seconds(60)) }
        }
        func leave(within seconds: Double) async {}
        func subscriberChanged(_ change: SubscriberConnectivity) {}
    }

    /// Records what the subscriptions are told, in order.
    final class RecordingSubscriptions: InboundSubscriptions {
        let told = LockedState<[(OwnershipChange, Int)]>([])
        var filterOptions: SubscriptionOptions { SubscriptionOptions() }
        func attach(_ connection: any InboundConnection) {}
        func absorbs(topic: String, payload: [UInt8], identifiers: [Int]) -> Bool { false }
        func hold(_ frame: RoutedFrame, device: Substring) -> Bool { false }
        func connectionEvent(_ event: MQTTClientEvent) -> [RoutedFrame] { [] }
        func partitionChanged(_ change: OwnershipChange, devices: [DeviceID]) { told.withLock { $0.append((change, devices.count)) } }
        func isSubscribed(partition: Int) -> Bool { true }
    }

    struct StoreAway: Error {}

    /// A store that knows `devices` and records each listing; `madeKnown` is taken up once. Device
    /// listings fail while `away` (the store unreachable).
    struct ListedDirectory: PartitionDirectory {
        let devices: [DeviceID]
        let calls: LockedState<[String]>
        let madeKnown = LockedState<[DeviceID]>([])
        var away = LockedState(false)
        func devices(in asked: [Int]) async throws -> [DeviceID] {
            calls.withLock { $0.append("devices \(asked.count)") }
            if away.withLock({ $0 }) { throw StoreAway() }
            return devices.filter { asked.contains(OwnershipPartitions().partition(of: $0.rawValue)) }
        }
        func retainedOutputs(in asked: [Int]) async throws -> [OutboundMessage] {
            calls.withLock { $0.append("retained \(asked.count)") }
            return devices.filter { asked.contains(OwnershipPartitions().partition(of: $0.rawValue)) }.map {
                OutboundMessage(.connection, of: $0, in: TopicScheme(), payload: Array("{}".utf8))
            }
        }
        func adoptMadeKnown() async throws -> [DeviceID] { madeKnown.withLock { found in defer { found = [] }; return found } }
    }

    @Test("300 partitions gained and one lost: one device listing and one retained listing per batch; each change in order with its partition's devices, its retained messages after it, none after its loss")
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
            directory: ListedDirectory(devices: devices, calls: calls),
            subscriptions: subscriptions, queues: [queue], metrics: OwnershipMetrics(factory: NOOPMetricsHandler.instance), drainSeconds: 0, clock: clock,
            logger: Logger(label: "ownership-service-test"))
        let running = Task { try await service.run() }
        // Until the loss and the retained messages of every partition still held came.
        var items: [(change: OwnershipChange, devices: [DeviceID], retained: [OutboundMessage])] = []
        let stillHeld = Set(gained.dropFirst())
        func complete() -> Bool {
            items.contains { $0.change == changes.last } && stillHeld.isSubset(of: Set(items.filter { !$0.retained.isEmpty }.map(\.change.partition)))
        }
        while !complete(), let batch = await queue.next() {
            for case .partitionMoved(let move) in batch { items.append((move.change, move.devices, move.retained)) }
        }
        running.cancel()
        _ = await running.result

        // The first change may come alone (the applier woke for it); the rest come as one batch.
        let made = calls.withLock { $0 }
        #expect(made.count <= 4, "one listing per kind and batch: \(made)")
        let expected = { (partition: Int) in Set(devices.filter { partitions.partition(of: $0.rawValue) == partition }) }
        let handed = items.filter { $0.retained.isEmpty }
        #expect(handed.map(\.change) == changes, "the workers get the changes in the port's order, each once")
        for item in handed where item.change != changes.last {
            #expect(Set(item.devices) == expected(item.change.partition), "partition \(item.change.partition)")
        }
        let lostAt = try #require(items.firstIndex { $0.change == changes.last })
        for (index, item) in items.enumerated() where !item.retained.isEmpty {
            let partition = item.change.partition
            #expect(item.devices.isEmpty && Set(item.retained.compactMap(\.device)) == expected(partition), "partition \(partition)")
            let changeAt = items.firstIndex { $0.change == item.change && $0.retained.isEmpty }
            #expect(changeAt.map { $0 < index } == true, "after its change")
            #expect(partition != gained.first || index < lostAt, "none after its loss")
        }
        let told = subscriptions.told.withLock { $0 }
        // Twice per change: at once in the observer (no devices), then with the listing.
        #expect(told.count == 2 * changes.count)
    }

    @Test("devices a former holder made known are taken up: subscribed and handed to the workers as a held or warming partition's; none of a partition not here")
    func adoptedDevices() async throws {
        let partitions = OwnershipPartitions()
        var byPartition: [Int: DeviceID] = [:]
        var index = 0
        while byPartition.count < 3 {
            let device = DeviceID("late-\(index)")!
            byPartition[partitions.partition(of: device.rawValue)] = byPartition[partitions.partition(of: device.rawValue)] ?? device
            index += 1
        }
        let ordered = byPartition.sorted { $0.key < $1.key }
        let (held, warming, elsewhere) = (ordered[0], ordered[1], ordered[2])
        let directory = ListedDirectory(devices: [], calls: LockedState([]))
        directory.madeKnown.withLock { $0 = [held.value, warming.value, elsewhere.value] }
        let clock = SystemGatewayClock()
        let queue = HandoffQueue<WorkItem>(capacity: 100, clock: clock)
        let subscriptions = RecordingSubscriptions()
        let service = OwnershipService(
            ownership: ScriptedOwnership([], roles: [held.key: .owner(epoch: 7), warming.key: .warming]), directory: directory,
            subscriptions: subscriptions, queues: [queue], metrics: OwnershipMetrics(factory: NOOPMetricsHandler.instance), drainSeconds: 0, clock: clock,
            logger: Logger(label: "ownership-service-test"))
        let running = Task { try await service.run() }
        var items: [WorkItem] = []
        while items.count < 2, let batch = await queue.next() { items += batch }
        running.cancel()
        _ = await running.result

        let handed = items.compactMap { item -> (OwnershipChange, [DeviceID])? in
            guard case .partitionMoved(let move) = item else { return nil }
            return (move.change, move.devices)
        }
        #expect(handed.count == 2 && queue.depth == 0, "the partition held elsewhere hands nothing: \(handed)")
        #expect(handed.first.map { $0.0 == .gained(partition: held.key, epoch: 7) && $0.1 == [held.value] } == true)
        #expect(handed.last.map { $0.0 == .warming(partition: warming.key) && $0.1 == [warming.value] } == true)
        let told = subscriptions.told.withLock { $0 }
        #expect(told.map(\.0) == [.gained(partition: held.key, epoch: 7), .warming(partition: warming.key)] && told.map(\.1) == [1, 1])
    }

    @Test("a listing that fails (the store away) is tried again every second until it answers: the warming partition is reported prepared only then, and both partitions' devices are handed over then, the gained one's retained messages after them")
    func failedListingRetried() async throws {
        let partitions = OwnershipPartitions()
        let devices = (0..<200).map { DeviceID("retry-\($0)")! }
        let (warming, gained) = (partitions.partition(of: devices[0].rawValue), partitions.partition(of: devices[1].rawValue))
        try #require(warming != gained)
        let calls = LockedState<[String]>([])
        let directory = ListedDirectory(devices: devices, calls: calls, away: LockedState(true))
        let ownership = ScriptedOwnership([.warming(partition: warming), .gained(partition: gained, epoch: 3)])
        let clock = SystemGatewayClock()
        let queue = HandoffQueue<WorkItem>(capacity: 100, clock: clock)
        let service = OwnershipService(
            ownership: ownership, directory: directory, subscriptions: RecordingSubscriptions(), queues: [queue],
            metrics: OwnershipMetrics(factory: NOOPMetricsHandler.instance), drainSeconds: 0, clock: clock, logger: Logger(label: "ownership-service-test"))
        let running = Task { try await service.run() }
        var handed: [(OwnershipChange, [DeviceID], Int)] = []
        while handed.count < 2, let batch = await queue.next() {
            for case .partitionMoved(let move) in batch { handed.append((move.change, move.devices, move.retained.count)) }
        }
        let first = Set(handed.map { "\($0.0)" })
        let scripted: Set<String> = ["\(OwnershipChange.warming(partition: warming))", "\(OwnershipChange.gained(partition: gained, epoch: 3))"]
        #expect(first == scripted)
        let listedFirst = handed.map { $0.1.count + $0.2 }
        #expect(listedFirst == [0, 0], "nothing listed yet")
        #expect(ownership.reported.withLock { $0 }.isEmpty, "not prepared while unlisted")
        directory.away.withLock { $0 = false }
        while handed.count < 5, let batch = await queue.next() {
            for case .partitionMoved(let move) in batch { handed.append((move.change, move.devices, move.retained.count)) }
        }
        running.cancel()
        _ = await running.result

        let expected = { (partition: Int) -> Set<DeviceID> in Set(devices.filter { partitions.partition(of: $0.rawValue) == partition }) }
        let again = Array(handed.suffix(3))
        let warmedAgain = again.first { $0.0 == .warming(partition: warming) }
        let gainedAgain = again.first { $0.0 == .gained(partition: gained, epoch: 3) && $0.2 == 0 }
        let retainedAfter = again.last
        #expect(warmedAgain.map { Set($0.1) } == expected(warming))
        #expect(gainedAgain.map { Set($0.1) } == expected(gained))
        #expect(retainedAfter?.0 == .gained(partition: gained, epoch: 3) && retainedAfter?.1.isEmpty == true)
        #expect(retainedAfter?.2 == expected(gained).count, "the gained one's retained messages, after its devices")
        #expect(ownership.reported.withLock { $0 } == [[warming]], "prepared once listed, the gained one not reported")
        #expect(calls.withLock { $0 }.filter { $0.hasPrefix("devices") }.count >= 4, "three attempts, then again until it answers")
    }
}
