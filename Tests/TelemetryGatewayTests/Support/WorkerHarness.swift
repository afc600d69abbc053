@testable import GatewayJournal
import CoreMetrics
import Logging
import Ownership
import RecorderStore

@testable import TelemetryCore
@testable import TelemetryGateway

/// One shard's worker without a broker: a publisher on a ``ScriptedBroker``, no recorder store,
/// publishing everything unless an ownership is given (then its outputs are stamped and
/// filtered by it as the clustered sink does, without the output ledger); its device state kept
/// in `store` (nil: memory only).
enum WorkerHarness {
    static func worker(
        broker: ScriptedBroker, journal: InboundJournal, queue: HandoffQueue<WorkItem>, factory: any MetricsFactory = NOOPMetricsHandler.instance,
        store: (any DeviceSnapshotStoring)? = nil, ownership: (any OwnershipPort)? = nil,
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
        let dependencies = ShardWorker.Dependencies(
            processor: .init(scheme: scheme, journalIdentity: journal.identity), publisher: publisher,
            outputs: ownership.map { StampingSink(ownership: $0, publisher: publisher) } ?? publisher, journal: journal,
            recorder: RecorderRuntime(configuration: configuration, scheme: scheme, logger: logger, metrics: RecorderMetrics(factory: factory), clock: clock),
            metrics: metrics, operations: operations, logger: logger, ownershipMetrics: OwnershipMetrics(factory: factory),
            tracing: nil, clock: clock)
        let keeper = DeviceStateKeeper(
            shard: 0, shardCount: 1, store: store, metrics: DeviceStateMetrics(factory: factory, shards: 1), health: operations.health,
            clock: clock, logger: logger, settings: configuration.state, retained: publisher.retained,
            restoreWaitLimitBytes: restoreWaitLimitBytes)
        return ShardWorker(shard: 0, shardCount: 1, queue: queue, deviceStates: keeper, dependencies: dependencies)
    }

    /// Journals a `status` frame of `device` in `state` received at `receivedAt` and queues it
    /// for the worker as its owner's.
    static func enqueueStatus(_ state: String, of device: String, receivedAt: Double, journal: InboundJournal, queue: HandoffQueue<WorkItem>) throws {
        let record = JournalRecord(
            topic: "wearables/\(device)/status", payload: Array(#"{"state":"\#(state)"}"#.utf8), contentType: nil, retained: false,
            receivedAt: receivedAt, traceparent: nil)
        guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { throw JournalFull() }
        _ = queue.push(.frame(routed(record, ticket: ticket, journal: journal)), bytes: 64, maxWait: 0)
    }

    /// `record` as the router routes it: journaled under `ticket` (nil: not journaled), its
    /// outputs leaving under `publication`.
    static func routed(_ record: JournalRecord, ticket: JournalTicket?, journal: InboundJournal, publication: Publication = .current) -> RoutedFrame {
        let scheme = TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway")
        let release = ticket.map { FrameRelease(ticket: $0, journal: journal, acknowledgements: nil) }
        guard case .frame(let topic) = scheme.classify(record.topic).kind else { preconditionFailure("not a frame topic: \(record.topic)") }
        return RoutedFrame(
            frame: InboundFrame(record, sequence: ticket?.sequence), command: .frame(topic), shard: 0, release: release, publication: publication)
    }

    /// The clustered sink's first step without its ledger: outputs stamped and filtered by the
    /// role their frame was routed under, then published.
    struct StampingSink: OutputSink {
        let ownership: any OwnershipPort
        let publisher: OutboundPublisher
        func publish(_ messages: [OutboundMessage], as publication: Publication, countdown: ReleaseCountdown?) async {
            let visible = ownership.visible(messages, receivedAs: publication.role)
            for _ in visible.count..<messages.count { countdown?.partDone() }
            await publisher.publish(visible, countdown: countdown)
        }
        func warmed(_ messages: [OutboundMessage]) {}
        func partitionMoved(_ move: PartitionMove) {}
    }

    /// The test journal had no room for a frame.
    struct JournalFull: Error {}
}
