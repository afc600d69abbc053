import GatewayJournal
import CoreMetrics
import Logging
import MQTTTransport
import TelemetryCore

/// The subscriber's message handler. Runs on libmosquitto's network thread: classifies the
/// topic once, asks the gate once whether and how this instance takes the frame, journals it,
/// and hands it to the worker that owns the device (or a recorder query to the query answerer).
/// It may block the thread (a full journal or full queues): that stops the socket being read and
/// pushes back on the broker, and only this subscribe-only connection ever does it.
final class InboundRouter: Sendable {
    private let scheme: TopicScheme
    private let clock: any GatewayClock
    /// The shard workers' queues; a device's frames go to the queue of the shard its id hashes to.
    private let handoff: ShardHandoff
    private var shards: ShardRouter { handoff.shards }
    /// Appends to the inbound journal and makes each record's release; nil when `journal.path` is null.
    private let journal: JournalAppender?
    /// Admits recorder queries into `queries` (or refuses them at once).
    private let recorder: RecorderRuntime
    private let queries: HandoffQueue<RecorderRequest>
    private let metrics: GatewayMetrics
    /// Where a network thread stuck in here shows (`/healthz`).
    private let health: RuntimeHealth
    /// Which frames this instance takes (every one in single mode).
    private let gate: any FrameGate

    /// A router over `queues` (one per shard).
    init(
        scheme: TopicScheme, clock: any GatewayClock, queues: [HandoffQueue<WorkItem>], maximumHandoffWait: Double, journal: JournalAppender?,
        recorder: RecorderRuntime, queries: HandoffQueue<RecorderRequest>, metrics: GatewayMetrics, health: RuntimeHealth, gate: any FrameGate,
        logger: Logger
    ) {
        self.scheme = scheme
        self.clock = clock
        handoff = ShardHandoff(queues: queues, maximumWait: maximumHandoffWait, metrics: metrics, clock: clock, logger: logger)
        self.journal = journal
        self.recorder = recorder
        self.queries = queries
        self.metrics = metrics
        self.health = health
        self.gate = gate
    }

    /// A connection event of the subscriber (on its network thread): a SUBACK releases the
    /// discovery frames held for the devices it acknowledged.
    func connectionEvent(_ event: MQTTClientEvent) {
        for frame in gate.connectionEvent(event) { handoff.push(frame) }
    }

    /// Handles a live message from the broker.
    func receive(_ message: MQTTMessage) {
        // A network thread stuck in here (a full journal or queue for too long) shows in /healthz.
        health.handlerEntered()
        defer { health.handlerLeft() }
        metrics.inboundBytes.increment(by: message.payload.count + message.topic.utf8.count)
        let receivedAt = clock.wallTime()
        let topic = scheme.classify(message.topic)
        if case .recorderQuery(let address) = topic.kind {
            metrics.messagesReceived.increment()
            // Clustered, the one instance the broker handed the query to answers it from the
            // shared store, whoever owns the device. Queries read the store, which may take a
            // while: they have their own task so device frames never wait behind them. This
            // thread never waits for that task: a query that does not fit is refused at once
            // (docs/recorder.md).
            let request = RecorderRequest(
                device: address.device, requester: address.requester, payload: message.payload, responseTopic: message.properties.responseTopic,
                correlationData: message.properties.correlationData, receivedAt: receivedAt)
            if !recorder.submit(request, to: queries) { metrics.handoffClosed.increment() }
            return
        }
        let admission = gate.admit(
            topic: message.topic, payload: message.payload, identifiers: message.properties.subscriptionIdentifiers, routingKey: topic.routingKey)
        // A copy of a message through an overlapping subscription is not counted again.
        if case .duplicate = admission { return }
        metrics.messagesReceived.increment()
        guard case .take(let publication) = admission else { return }
        let record = JournalRecord(
            topic: message.topic, payload: message.payload, contentType: message.properties.contentType, retained: message.retain,
            receivedAt: receivedAt, traceparent: TraceParent.first(in: message.properties.userProperties.map { ($0.name, $0.value) })?.value)
        let shard = shards.shard(forRoutingKey: topic.routingKey)
        // A warming partition's frame is processed without a journal record (its holder keeps one).
        let release = publication.isWarming ? nil : journal?.append(record, shard: shard)
        let routed = routed(record, topic, shard: shard, release: release, publication: publication)
        if gate.hold(routed, device: topic.routingKey) { return }
        handoff.push(routed)
    }

    /// Hands a journaled record of an earlier run to its worker (replay at start, once the
    /// ownership is known). A record of a device whose partition another instance holds by now
    /// is not applied here (counted; its record is let go); a recorder upload among them is
    /// stored all the same (history).
    func replay(_ record: JournalRecord, ticket: JournalTicket) {
        metrics.journalReplayed.increment()
        let topic = scheme.classify(record.topic)
        let release = journal?.release(ticket)
        let routed = routed(record, topic, shard: shards.shard(forRoutingKey: topic.routingKey), release: release, publication: .current)
        switch gate.replay(routingKey: topic.routingKey, upload: routed.isRecorderUpload) {
        case .apply: handoff.push(routed)
        case .storeOnly: handoff.push(routed, storeOnly: true)
        case .drop: release?.now()
        }
    }

    /// The routed frame of a received or replayed record (a recorder query never is one).
    private func routed(_ record: JournalRecord, _ topic: ClassifiedTopic, shard: Int, release: FrameRelease?, publication: Publication) -> RoutedFrame {
        let command: RoutedFrame.Command
        switch topic.kind {
        case .frame(let inbound): command = .frame(inbound)
        case .resetPose(let device): command = .resetPose(device)
        case .recorderQuery:
            // Never journaled: only a record of a run with other roots gets here, as an invalid frame.
            command = .frame(.invalid(TopicRejection(code: .invalidTopic, detail: "topic is not below the inbound root '\(scheme.inboundRoot)/'")))
        }
        return RoutedFrame(frame: InboundFrame(record, sequence: release?.sequence), command: command, shard: shard, release: release, publication: publication)
    }
}
