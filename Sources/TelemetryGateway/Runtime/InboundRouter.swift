import GatewayJournal
import CoreMetrics
import Logging
import MQTTTransport
import Ownership
import TelemetryCore

/// The subscriber's message handler. Runs on libmosquitto's network thread: parses the topic
/// once, journals the frame, and hands it to the worker that owns the device (or a recorder
/// query to the query answerer). It may block the thread (a full journal or full queues): that
/// stops the socket being read and pushes back on the broker, and only this subscribe-only
/// connection ever does it.
final class InboundRouter: Sendable {
    private let scheme: TopicScheme
    private let clock: any GatewayClock
    /// The shard workers' queues; a device's frames go to the queue of the shard its id hashes to.
    private let handoff: ShardHandoff
    private var shards: ShardRouter { handoff.shards }
    /// Appends to the inbound journal; nil when `journal.path` is null.
    private let journal: JournalAppender?
    /// Admits recorder queries into `queries` (or refuses them at once).
    private let recorder: RecorderRuntime
    private let queries: HandoffQueue<RecorderRequest>
    private let metrics: GatewayMetrics
    /// Where a network thread stuck in here shows (`/healthz`).
    private let health: RuntimeHealth
    /// Who processes which device here (every device in single mode).
    private let ownership: any OwnershipPort
    /// How device frames reach the subscriber (per device in clustered mode).
    private let subscriptions: any InboundSubscriptions
    private let ownershipMetrics: OwnershipMetrics
    /// Clustered: a held device's journaled frame is acknowledged once its outputs are published.
    private let acknowledgements: AcknowledgementsAfterOutputs?

    /// A router over `queues` (one per shard).
    init(
        scheme: TopicScheme, clock: any GatewayClock, queues: [HandoffQueue<WorkItem>], maximumHandoffWait: Double, journal: InboundJournal?,
        journalMaximumWait: Double, recorder: RecorderRuntime, queries: HandoffQueue<RecorderRequest>, metrics: GatewayMetrics,
        health: RuntimeHealth, ownership: any OwnershipPort, subscriptions: any InboundSubscriptions, ownershipMetrics: OwnershipMetrics,
        acknowledgements: AcknowledgementsAfterOutputs? = nil, logger: Logger
    ) {
        self.scheme = scheme
        self.clock = clock
        handoff = ShardHandoff(queues: queues, maximumWait: maximumHandoffWait, metrics: metrics, clock: clock, logger: logger)
        self.journal = journal.map { JournalAppender(journal: $0, maximumWait: journalMaximumWait, metrics: metrics, clock: clock, logger: logger) }
        self.recorder = recorder
        self.queries = queries
        self.metrics = metrics
        self.health = health
        self.ownership = ownership
        self.subscriptions = subscriptions
        self.ownershipMetrics = ownershipMetrics
        self.acknowledgements = acknowledgements
    }

    /// A connection event of the subscriber (on its network thread): a SUBACK releases the
    /// discovery frames held for the devices it acknowledged.
    func connectionEvent(_ event: MQTTClientEvent) {
        acknowledgements?.connectionEvent(event)
        for frame in subscriptions.connectionEvent(event) { route(frame.record, ticket: frame.ticket, role: frame.role) }
    }

    /// Handles a live message from the broker.
    func receive(_ message: MQTTMessage) {
        // A network thread stuck in here (a full journal or queue for too long) shows in /healthz.
        health.handlerEntered()
        defer { health.handlerLeft() }
        metrics.inboundBytes.increment(by: message.payload.count + message.topic.utf8.count)
        // Clustered: a hello or status of a subscribed device comes twice (it matches the
        // discovery filter and the device's own); the copy through the device's filter goes.
        if subscriptions.absorbs(topic: message.topic, identifiers: message.properties.subscriptionIdentifiers) { return }
        metrics.messagesReceived.increment()
        let receivedAt = clock.wallTime()
        if let address = scheme.parseRecorderQuery(message.topic) {
            // Clustered, the one instance the broker handed the query to answers it from the
            // shared store, whoever owns the device. Queries read the store, which may take a
            // while: they have their own task so device frames never wait behind them. This
            // thread never waits for that task: a query that does not fit is refused at once
            // (docs/recorder.md).
            let request = RecorderRequest(
                device: address.device, requester: address.requester, payload: message.payload, responseTopic: message.properties.responseTopic,
                correlationData: message.properties.correlationData, receivedAt: receivedAt)
            if !recorder.submit(request, to: queries) {
                metrics.handoffClosed.increment()
            }
            return
        }
        let record = JournalRecord(
            topic: message.topic, payload: message.payload, contentType: message.properties.contentType, retained: message.retain,
            receivedAt: receivedAt, traceparent: TraceParent.first(in: message.properties.userProperties.map { ($0.name, $0.value) })?.value)
        // Another instance's device is dropped here, before the journal; a warming partition's
        // frame is processed without a journal record (its holder keeps one).
        let key = routingKey(of: record.topic)
        let role = ownership.role(of: key)
        let shard = shards.shard(forRoutingKey: key)
        let ticket: JournalTicket?
        switch role {
        case .none:
            ownershipMetrics.framesNotOwned.increment()
            return
        case .owner: ticket = journal?.append(record, shard: shard)
        case .warming:
            ownershipMetrics.framesShadowed.increment()
            ticket = nil
        }
        // A discovery frame of a device whose subscription is not acknowledged yet waits for the
        // SUBACK (its availability must not reach the device before its frames can).
        if subscriptions.hold(HeldDiscoveryFrame(record: record, ticket: ticket, role: role), device: key) { return }
        if let ticket { acknowledgements?.opened(ticket.sequence) }
        route(record, ticket: ticket, shard: shard, role: role)
    }

    /// Hands a journaled record of an earlier run to its worker (replay at start, once the
    /// ownership is known). A record of a device whose partition another instance holds by now
    /// is not applied here (counted; its record is let go); a recorder upload among them is
    /// stored all the same (history).
    func replay(_ record: JournalRecord, ticket: JournalTicket) {
        metrics.journalReplayed.increment()
        // Only a held partition's records are applied: a warming one's device continues from
        // what its holder stored, which these older frames must not be applied onto.
        guard case .owner = ownership.role(of: routingKey(of: record.topic)) else {
            if case .device(_, .recorderAccelerometer) = scheme.parseInbound(record.topic) {
                // History whoever holds the device now: stored, not applied to its state.
                handoff.push(.replayedUpload(InboundFrame(record, sequence: ticket.sequence), ticket), bytes: record.payload.count, shard: shards.shard(forRoutingKey: routingKey(of: record.topic)), topic: record.topic, ticket: ticket)
                return
            }
            ownershipMetrics.framesNotOwned.increment()
            journal?.journal.release(ticket)
            return
        }
        route(record, ticket: ticket, role: nil)
    }

    /// The device level of `topic`, whose shard and partition its frames go by. Commands under
    /// the outbound root (reset-pose) go by their device too, so they stay in order with its
    /// frames; the roots never overlap.
    private func routingKey(of topic: String) -> Substring {
        TopicScheme.routingKey(of: topic, inboundRoot: scheme.inboundRoot)
            ?? TopicScheme.routingKey(of: topic, inboundRoot: scheme.outboundRoot) ?? Substring(topic)
    }

    /// Hands a record to its shard's worker; `role` is its device's role when it arrived, nil
    /// for a record of an earlier run (replayed: published by the role at the time it is processed).
    private func route(_ record: JournalRecord, ticket: JournalTicket?, shard knownShard: Int? = nil, role: DeviceRole?) {
        let shard = knownShard ?? shards.shard(forRoutingKey: routingKey(of: record.topic))
        let item: WorkItem
        if let device = scheme.parseHeadphoneResetPose(record.topic) {
            item = .resetPose(device, receivedAt: record.receivedAt, retained: record.retained, ticket)
        } else {
            var frame = InboundFrame(record, sequence: ticket?.sequence)
            frame.parsedTopic = scheme.parseInbound(record.topic)
            switch role {
            case .warming?: item = .shadow(frame)
            case let role?: item = .frame(frame, ticket, receivedAs: role)
            case nil:
                item = ticket.map { .replayed(frame, $0) } ?? .frame(frame, nil, receivedAs: ownership.role(of: routingKey(of: record.topic)))
            }
        }
        handoff.push(item, bytes: record.payload.count + record.topic.utf8.count, shard: shard, topic: record.topic, ticket: ticket)
    }
}
