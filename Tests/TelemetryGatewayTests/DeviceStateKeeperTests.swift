import CoreMetrics
import Foundation
import GatewayJournal
import Locking
import Logging
import Ownership
import Prometheus
import RecorderStore
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// A shard's device state while the store cannot be written: no device leaves memory unsaved,
/// and the failure shows in the readiness body.
@Suite("Device state keeper: a failing store")
struct DeviceStateKeeperTests {
    @Test("over capacity while the store fails: nothing is evicted; once it works again the snapshots are stored, then evicted")
    func neverEvictsUnsaved() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keeper-\(UUID().uuidString)/state")
        let store = try DeviceStateStore(path: directory.appendingPathComponent("state.sqlite").path)
        // A real fault that holds as root too: the store's directory is replaced by a file.
        try FileManager.default.removeItem(at: directory)
        try Data("not a directory".utf8).write(to: directory)

        var settings = GatewayConfiguration.DeviceState()
        settings.maximumResidentDevices = 1
        let health = RuntimeHealth(stallTimeout: 30, now: { 0 })
        var keeper = DeviceStateKeeper(
            shard: 0, shardCount: 1, store: store, metrics: DeviceStateMetrics(factory: NOOPMetricsHandler.instance, shards: 1),
            health: health, clock: SystemGatewayClock(), logger: Logger(label: "keeper-test"), settings: settings,
            retained: RetainedStateCache(limit: 1 << 20))
        var processor = FrameProcessor()
        let devices = ["state-a", "state-b", "state-c"].compactMap(DeviceID.init)
        for device in devices {
            _ = processor.process(InboundFrame(topic: "wearables/\(device)/status", payload: Array(#"{"state":"online"}"#.utf8), receivedAt: 1_000))
        }
        // Snapshot writes are due every state.snapshotInterval (0.5 s) of the monotonic clock.
        let start = SuspendingClock.now

        // The first tick starts the snapshot clock; the write is due one interval later.
        await keeper.persist(&processor, now: 1_000, at: start - .seconds(1))
        await keeper.persist(&processor, now: 1_000.5, at: start)
        #expect(processor.residentDeviceCount == 3, "three devices over a bound of one, none stored: all stay in memory")
        #expect(keeper.unsaved == Set(devices))
        let failing = health.readiness()
        #expect(failing.stores.map(\.name) == ["state.path"])
        #expect(failing.stores.first?.failing == true)
        #expect(!failing.problems.contains { $0.contains("state") }, "a failing store does not make the gateway unready")
        #expect(String(decoding: failing.json, as: UTF8.self).contains(#""status":"failing""#))

        // Still failing a tick later: still nothing evicted.
        await keeper.persist(&processor, now: 1_001, at: start + .seconds(1))
        #expect(processor.residentDeviceCount == 3)

        try FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        await keeper.persist(&processor, now: 1_001.5, at: start + .seconds(2))
        #expect(keeper.unsaved.isEmpty)
        #expect(processor.residentDeviceCount == 0, "stored, then evicted down to 90 % of the bound")
        #expect(Set(try await store.devices()) == Set(devices))
        #expect(health.readiness().stores.first?.failing == false)
    }

    @Test("a snapshot carries the device's retained messages; the next keeper to restore the device takes back those it has none of")
    func retainedTravelWithSnapshots() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keeper-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try DeviceStateStore(path: directory.appendingPathComponent("state.sqlite").path)
        let health = RuntimeHealth(stallTimeout: 30, now: { 0 })
        func keeper(_ cache: RetainedStateCache) -> DeviceStateKeeper {
            DeviceStateKeeper(
                shard: 0, shardCount: 1, store: SharedStore(base: store), metrics: DeviceStateMetrics(factory: NOOPMetricsHandler.instance, shards: 1), health: health,
                clock: SystemGatewayClock(), logger: Logger(label: "keeper-test"), settings: GatewayConfiguration.DeviceState(), retained: cache)
        }
        let device = try #require(DeviceID("keeper-retained"))
        // The first holder processes the device's status and publishes its connection, retained.
        let first = RetainedStateCache(limit: 1 << 20)
        var writer = keeper(first)
        var processor = FrameProcessor()
        let result = processor.process(InboundFrame(topic: "wearables/\(device)/status", payload: Array(#"{"state":"online"}"#.utf8), receivedAt: 1_000))
        let connection = try #require(result.messages.first { $0.retain && $0.topic == "gateway/\(device)/connection" })
        result.messages.forEach(first.record)
        let start = SuspendingClock.now
        await writer.persist(&processor, now: 1_000, at: start)
        await writer.persist(&processor, now: 1_001, at: start + .seconds(60))
        let stored = try #require(try await store.snapshot(of: device))
        #expect(stored.retainedOutputs == [connection])

        // The next holder already published one topic of the device itself (newer): that one stays.
        let next = RetainedStateCache(limit: 1 << 20)
        let newer = OutboundMessage(.availability, of: device, in: TopicScheme(), payload: Array(#"{"newer":true}"#.utf8))
        next.record(newer)
        var reader = keeper(next)
        try await store.save([(device, { var old = stored; old.retainedOutputs = [connection, { var stale = newer; stale.payload = Array("{}".utf8); return stale }()]; return old }())])
        var successor = FrameProcessor()
        await reader.stored.load(router: ShardRouter(shardCount: 1))
        _ = await reader.stored.restoreIfDormant(device, into: &successor, at: .now)
        #expect(Set(next.snapshot().map(\.payloadString)) == Set([connection.payloadString, newer.payloadString]))
    }

    /// A store whose writes fail while `failing`, counting the writes asked of it.
    final class FlakyStore: DeviceSnapshotStoring, Sendable {
        let failing = LockedState(true)
        let writes = LockedState<[[DeviceID]]>([])
        var location: String { "flaky" }
        func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws {
            writes.withLock { $0.append(snapshots.map(\.device)) }
            if failing.withLock({ $0 }) { throw CancellationError() }
        }
        func snapshot(of device: DeviceID) async throws -> DeviceSnapshot? { nil }
        func devices() async throws -> [DeviceID] { [] }
        func prune(lastSeenBefore cutoff: Double) async throws -> Int { 0 }
        /// Clustered: other instances take devices over from it.
        var handsDevicesOver: Bool { true }
    }

    /// A store as the clustered modes' shared one behaves: it lists no devices and hands them over.
    struct SharedStore: DeviceSnapshotStoring {
        let base: any DeviceSnapshotStoring
        var location: String { base.location }
        var handsDevicesOver: Bool { true }
        func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws { try await base.save(snapshots) }
        func snapshot(of device: DeviceID) async throws -> DeviceSnapshot? { try await base.snapshot(of: device) }
        func devices() async throws -> [DeviceID] { [] }
        func prune(lastSeenBefore cutoff: Double) async throws -> Int { try await base.prune(lastSeenBefore: cutoff) }
    }

    @Test("clustered, after a failed write the context frames wait for the next tick's write instead of trying the store at every batch")
    func contextWritesWaitWhileFailing() async throws {
        let store = FlakyStore()
        var keeper = DeviceStateKeeper(
            shard: 0, shardCount: 1, store: store, metrics: DeviceStateMetrics(factory: NOOPMetricsHandler.instance, shards: 1),
            health: RuntimeHealth(stallTimeout: 30, now: { 0 }), clock: SystemGatewayClock(), logger: Logger(label: "keeper-test"),
            settings: GatewayConfiguration.DeviceState(), retained: RetainedStateCache(limit: 1 << 20))
        var processor = FrameProcessor()
        let device = try #require(DeviceID("flaky-1"))
        func status(_ state: String, at time: Double) {
            _ = processor.process(InboundFrame(topic: "wearables/\(device)/status", payload: Array(#"{"state":"\#(state)"}"#.utf8), receivedAt: time))
            _ = keeper.applied(Self.statusFrame(of: device), messages: [], changesSnapshot: true, heldChunk: false)
        }
        status("online", at: 1_000)
        await keeper.persistContext(processor)
        #expect(store.writes.withLock { $0.count } == 1, "the first context write tries the store")
        status("offline", at: 1_001)
        await keeper.persistContext(processor)
        #expect(store.writes.withLock { $0.count } == 1, "failing: no write per batch")
        #expect(keeper.unsaved == [device])
        store.failing.withLock { $0 = false }
        let start = SuspendingClock.now
        await keeper.persist(&processor, now: 1_002, at: start)
        await keeper.persist(&processor, now: 1_003, at: start + .seconds(60))
        #expect(store.writes.withLock { $0.last } == [device], "the tick writes it")
        #expect(keeper.unsaved.isEmpty)
        status("online", at: 1_004)
        await keeper.persistContext(processor)
        #expect(store.writes.withLock { $0.count } == 3, "healthy again: context frames are written at once")
    }

    @Test("clustered, a partition lost with a context frame not yet written: its device is written before it is forgotten, another partition's waits for its batch")
    func lostPartitionWritesPendingContext() async throws {
        let store = FlakyStore()
        store.failing.withLock { $0 = false }
        var keeper = DeviceStateKeeper(
            shard: 0, shardCount: 1, store: store, metrics: DeviceStateMetrics(factory: NOOPMetricsHandler.instance, shards: 1),
            health: RuntimeHealth(stallTimeout: 30, now: { 0 }), clock: SystemGatewayClock(), logger: Logger(label: "keeper-test"),
            settings: GatewayConfiguration.DeviceState(), retained: RetainedStateCache(limit: 1 << 20))
        var processor = FrameProcessor()
        let partitions = OwnershipPartitions()
        let leaving = try #require(DeviceID("newcomer-1"))
        let staying = try #require((0..<10_000).compactMap { DeviceID("other-\($0)") }.first { partitions.partition(of: $0.rawValue) != partitions.partition(of: leaving.rawValue) })
        // Both said hello in the batch that also carries the loss of the newcomer's partition.
        for device in [leaving, staying] {
            _ = processor.process(InboundFrame(topic: "wearables/\(device)/status", payload: Array(#"{"state":"online"}"#.utf8), receivedAt: 1_000))
            _ = keeper.applied(Self.statusFrame(of: device), messages: [], changesSnapshot: true, heldChunk: false)
        }
        let partition = partitions.partition(of: leaving.rawValue)
        let resident = processor.residentDevices.filter { partitions.partition(of: $0.rawValue) == partition }
        await keeper.forgetPartition(where: { partitions.partition(of: $0.rawValue) == partition }, leaving: resident, processor: processor)
        #expect(store.writes.withLock { $0 } == [[leaving]], "the leaving device written before it is forgotten")
        await keeper.persistContext(processor)
        #expect(store.writes.withLock { $0 } == [[leaving], [staying]], "the other written at the batch's end, the leaving one not again")
    }

    @Test("clustered, a batched frame's journal record stays for the sample-window hold after it is applied, then goes at the first tick past it; a status frame's goes with its outputs; journal pressure lets the held ones go at once, counted, without a snapshot write")
    func batchedRecordsHeldForSampleWindows() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keeper-journal-\(UUID().uuidString).bin").path
        let journal = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
        let registry = PrometheusCollectorRegistry()
        let store = FlakyStore()
        store.failing.withLock { $0 = false }
        var keeper = DeviceStateKeeper(
            shard: 0, shardCount: 1, store: store, metrics: DeviceStateMetrics(factory: PrometheusMetricsFactory(registry: registry), shards: 1),
            health: RuntimeHealth(stallTimeout: 30, now: { 0 }), clock: SystemGatewayClock(), logger: Logger(label: "keeper-test"),
            settings: GatewayConfiguration.DeviceState(), retained: RetainedStateCache(limit: 1 << 20), sampleWindowHold: .seconds(4))
        var processor = FrameProcessor()
        let device = try #require(DeviceID("batched-1"))
        /// Journals a frame of `stream`, applies it with no outputs and finishes its processing.
        func apply(_ stream: InboundStream, changesSnapshot: Bool = false) throws {
            let record = JournalRecord(topic: "wearables/\(device)/\(stream.rawValue)", payload: [], contentType: nil, retained: false, receivedAt: 1_000)
            guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { throw JournalTestFailure("append failed") }
            let routed = RoutedFrame(
                frame: InboundFrame(topic: record.topic, payload: [], receivedAt: 1_000), command: .frame(.device(device, stream)), shard: 0,
                release: FrameRelease(ticket: ticket, journal: journal, acknowledgements: nil), publication: .current)
            let countdowns = keeper.applied(routed, messages: [], changesSnapshot: changesSnapshot, heldChunk: false)
            try #require(countdowns != nil)
            countdowns?.record.partDone()
        }
        try apply(.batchedAccelerometer)
        try apply(.status)
        #expect(journal.statistics.liveRecords == 1, "the status frame's record went with its (no) outputs; the batched one stays")
        let start = SuspendingClock.now
        await keeper.persist(&processor, now: 1_000, at: start)
        await keeper.persist(&processor, now: 1_003, at: start + .milliseconds(3_999))
        #expect(journal.statistics.liveRecords == 1, "held for 4 s from the tick after it was applied")
        await keeper.persist(&processor, now: 1_004, at: start + .seconds(4))
        #expect(journal.statistics.liveRecords == 0, "let go once the hold is over")

        try apply(.batchedDeviceMotion)
        await keeper.persist(&processor, now: 1_005, at: start + .seconds(5))
        try apply(.batchedAccelerometer)
        // A status frame whose effect waits for the device's next snapshot.
        _ = processor.process(InboundFrame(topic: "wearables/\(device)/status", payload: Array(#"{"state":"online"}"#.utf8), receivedAt: 1_005))
        try apply(.status, changesSnapshot: true)
        #expect(journal.statistics.liveRecords == 3)
        await keeper.persistNow(&processor)
        #expect(journal.statistics.liveRecords == 1, "journal pressure: both batched records let go, the one whose hold had begun and the one since the tick")
        #expect(registry.value(of: "gateway_journal_window_holds_released_early_total") == 2)
        #expect(store.writes.withLock { $0.isEmpty }, "and no snapshot written for it: that would put the ring's size on the shared store")
        await keeper.persistNow(&processor)
        #expect(journal.statistics.liveRecords == 0, "the next request writes the snapshot the status frame waits for")
        #expect(store.writes.withLock { $0 } == [[device]])
    }

    /// A status frame of `device` as the router routes it, without a journal record.
    private static func statusFrame(of device: DeviceID) -> RoutedFrame {
        RoutedFrame(
            frame: InboundFrame(topic: "wearables/\(device)/status", payload: [], receivedAt: 0), command: .frame(.device(device, .status)), shard: 0,
            release: nil, publication: .current)
    }
}
