@testable import GatewayJournal
import CoreMetrics
import Logging
import Ownership
import RecorderStore

@testable import TelemetryCore
@testable import TelemetryGateway

/// One shard's worker without a broker: a publisher on a ``ScriptedBroker``, no recorder store,
/// the sole owner unless another ownership is given; its device state kept in `store` (nil:
/// memory only), `shared` as the clustered store is.
enum WorkerHarness {
    static func worker(
        broker: ScriptedBroker, journal: InboundJournal, queue: HandoffQueue<WorkItem>, factory: any MetricsFactory = NOOPMetricsHandler.instance,
        store: (any DeviceSnapshotStoring)? = nil, ownership: any OwnershipPort = SoleOwner(), shared: Bool = false,
        clock: any GatewayClock = SystemGatewayClock(), restoreWaitLimitBytes: Int = 4 << 20
    ) throws -> ShardWorker {
        var configuration = GatewayConfiguration()
        configuration.recorder.database = nil
        let logger = Logger(label: "worker-test")
        let metrics = GatewayMetrics(factory: factory, shards: 1)
        let operations = GatewayOperations(configuration: configuration, metricsFactory: factory, logger: logger, clock: clock)
        let scheme = TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway")
        let publisher = OutboundPublisher(
            client: try broker.connections.makePublisher(configuration.subscriberConfiguration(), logger) { _ in },
            retained: RetainedStateCache(limit: 1 << 20, evictions: metrics.retainedEvicted), metrics: metrics, operations: operations,
            clock: clock, logger: logger)
        var dependencies = ShardWorker.Dependencies(
            processor: .init(scheme: scheme, journalIdentity: journal.identity), scheme: scheme, publisher: publisher, outputs: publisher, journal: journal,
            recorder: RecorderRuntime(configuration: configuration, scheme: scheme, logger: logger, metrics: RecorderMetrics(factory: factory), clock: clock),
            metrics: metrics, operations: operations, logger: logger, ownership: ownership, ownershipMetrics: OwnershipMetrics(factory: factory),
            tracing: nil, clock: clock)
        dependencies.restoreWaitLimitBytes = restoreWaitLimitBytes
        let keeper = DeviceStateKeeper(
            shard: 0, shardCount: 1, store: store, metrics: DeviceStateMetrics(factory: factory, shards: 1), health: operations.health,
            clock: clock, logger: logger, settings: configuration.state, retained: publisher.retained, shared: shared)
        return ShardWorker(shard: 0, shardCount: 1, queue: queue, deviceStates: keeper, dependencies: dependencies)
    }

    /// Journals a `status` frame of `device` in `state` received at `receivedAt` and queues it
    /// for the worker as its owner's.
    static func enqueueStatus(_ state: String, of device: String, receivedAt: Double, journal: InboundJournal, queue: HandoffQueue<WorkItem>) throws {
        let record = JournalRecord(
            topic: "wearables/\(device)/status", payload: Array(#"{"state":"\#(state)"}"#.utf8), contentType: nil, retained: false,
            receivedAt: receivedAt, traceparent: nil)
        guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { throw JournalFull() }
        var frame = InboundFrame(topic: record.topic, payload: record.payload, receivedAt: record.receivedAt)
        frame.journalSequence = ticket.sequence
        _ = queue.push(.frame(frame, ticket, receivedAs: .owner(epoch: 0)), bytes: 64, maxWait: 0)
    }

    /// The test journal had no room for a frame.
    struct JournalFull: Error {}
}
