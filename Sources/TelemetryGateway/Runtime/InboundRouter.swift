import CoreMetrics
import Logging
import MQTTTransport
import TelemetryCore

/// The subscriber's message handler. Runs on libmosquitto's network thread: parses the topic
/// once, journals the frame, and hands it to the worker that owns the device (or a recorder
/// query to the query answerer). It may block the thread (a full journal or full queues): that
/// stops the socket being read and pushes back on the broker, and only this subscribe-only
/// connection ever does it.
final class InboundRouter: Sendable {
    private let scheme: TopicScheme
    private let clock: any GatewayClock
    /// One queue per shard; a device's frames go to the queue of the shard its id hashes to.
    private let queues: [HandoffQueue<WorkItem>]
    private let shards: ShardRouter
    /// How long a full queue may block the network thread (`pipeline.maxHandoffWait`).
    private let maximumHandoffWait: Double
    /// The inbound journal; nil when `journal.path` is null.
    private let journal: InboundJournal?
    /// How long a full journal may block the network thread (`journal.maxWait`).
    private let journalMaximumWait: Double
    /// Admits recorder queries into `queries` (or refuses them at once).
    private let recorder: RecorderRuntime
    private let queries: HandoffQueue<RecorderRequest>
    private let metrics: GatewayMetrics
    /// Where a network thread stuck in here shows (`/healthz`).
    private let health: RuntimeHealth
    /// Partitioned mode's ownership; nil in single mode.
    private let cluster: ClusterRuntime?
    private let logger: Logger
    private let overload: RateLimitedLog

    /// A router over `queues` (one per shard).
    init(
        scheme: TopicScheme, clock: any GatewayClock, queues: [HandoffQueue<WorkItem>], maximumHandoffWait: Double, journal: InboundJournal?,
        journalMaximumWait: Double, recorder: RecorderRuntime, queries: HandoffQueue<RecorderRequest>, metrics: GatewayMetrics,
        health: RuntimeHealth, cluster: ClusterRuntime?, logger: Logger
    ) {
        self.scheme = scheme
        self.clock = clock
        overload = RateLimitedLog(interval: 10, clock: clock)
        self.queues = queues
        shards = ShardRouter(shardCount: queues.count)
        self.maximumHandoffWait = maximumHandoffWait
        self.journal = journal
        self.journalMaximumWait = journalMaximumWait
        self.recorder = recorder
        self.queries = queries
        self.metrics = metrics
        self.health = health
        self.cluster = cluster
        self.logger = logger
        if let subscriptions = cluster?.subscriptions {
            // Plan changes (membership, a warm-up's end) move per-device subscriptions; frames
            // held for a device no longer subscribed go on in order.
            // The gate's releases go first: a device moved away sends nothing more here.
            let gate = cluster?.gate
            cluster?.view.observe { [weak self] plan in
                self?.handOver(plan)
                let released = subscriptions.planChanged(plan, keeping: gate?.handingOver ?? [])
                if !released.isEmpty { self?.route(released) }
            }
        }
    }

    /// A connection event of the subscriber (on its network thread): a SUBACK releases the
    /// discovery frames held for the devices it acknowledged; a lost connection makes them wait
    /// for the SUBACKs of the resubscription.
    func connectionEvent(_ event: MQTTClientEvent) {
        guard let subscriptions = cluster?.subscriptions else { return }
        switch event {
        case .subscribed(let filters): route(subscriptions.acknowledged(filters))
        case .disconnected: subscriptions.connectionLost()
        default: break
        }
    }

    private func route(_ held: [DeviceSubscriptions.HeldFrame]) {
        for frame in held { route(frame.record, ticket: frame.ticket, shadow: frame.shadow) }
    }

    /// Handles a live message from the broker.
    func receive(_ message: MQTTMessage) {
        // A network thread stuck in here (a full journal or queue for too long) shows in /healthz.
        health.handlerEntered()
        defer { health.handlerLeft() }
        metrics.inboundBytes.increment(by: message.payload.count + message.topic.utf8.count)
        // Partitioned: a hello or status of an owned device comes twice (it matches the
        // discovery filter and the device's own); the copy through the device's filter goes.
        let discovery = cluster?.subscriptions == nil ? nil : discoveryStream(of: message.topic)
        if let discovery, DeviceSubscriptions.isDuplicate(stream: discovery.stream, identifiers: message.properties.subscriptionIdentifiers) {
            cluster?.metrics.duplicateDeliveries.increment()
            return
        }
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
        // Partitioned: another instance's device is dropped here, before the journal; the next
        // owner warming up processes it without a journal record (its owner keeps one).
        let role = admit(record, replayed: false)
        if let discovery, let subscriptions = cluster?.subscriptions {
            // A discovery frame of a device whose subscription is not acknowledged yet waits for
            // the SUBACK (its availability must not reach the device before its frames can).
            guard role != .none else {
                subscriptions.seen(discovery.key)
                return
            }
            let ticket = role == .owner ? journal(record, shard: shard(of: record.topic)) : nil
            let frame = DeviceSubscriptions.HeldFrame(record: record, ticket: ticket, shadow: role == .shadow)
            if !subscriptions.hold(frame, key: String(discovery.key), role: role) { route(record, ticket: ticket, shadow: role == .shadow) }
            return
        }
        switch role {
        case .owner:
            let shard = shard(of: record.topic)
            route(record, ticket: journal(record, shard: shard), shard: shard)
        case .shadow: route(record, ticket: nil, shadow: true)
        case .none: return
        }
    }

    /// The device level and stream of a discovery-stream topic (hello, status); nil otherwise.
    private func discoveryStream(of topic: String) -> (key: Substring, stream: InboundStream)? {
        guard let key = TopicScheme.routingKey(of: topic, inboundRoot: scheme.inboundRoot),
            let stream = ContextCache.inboundStream(of: topic, key: key, root: scheme.inboundRoot), TopicScheme.isDiscovery(stream)
        else { return nil }
        return (key, stream)
    }

    /// Hands a journaled record of an earlier run to its worker (replay at start).
    func replay(_ record: JournalRecord, ticket: JournalTicket) {
        metrics.journalReplayed.increment()
        _ = admit(record, replayed: true)
        route(record, ticket: ticket, replayed: true)
    }

    /// Queues the promotions and releases of a plan change noticed outside the routing of a
    /// message (on the thread that noticed it).
    private func handOver(_ plan: OwnershipPlan) {
        guard let gate = cluster?.gate else { return }
        let (promoted, released) = gate.planChanged(plan)
        for device in promoted {
            push(.handover(.promoted(device)), bytes: 0, shard: shards.shard(forRoutingKey: device.rawValue), topic: device.rawValue, ticket: nil)
        }
        for device in released {
            push(.handover(.lost(device)), bytes: 0, shard: shards.shard(forRoutingKey: device.rawValue), topic: device.rawValue, ticket: nil)
        }
    }

    /// Partitioned mode's gate (always owner otherwise): this instance's role for the record;
    /// queues the hand-over items its ownership check produced (promotions and releases first,
    /// then the restore of a device gained right now) and the copy of an owned context frame.
    private func admit(_ record: JournalRecord, replayed: Bool) -> OwnershipPlan.Role {
        guard let cluster else { return .owner }
        let gate = cluster.gate
        let inboundKey = TopicScheme.routingKey(of: record.topic, inboundRoot: scheme.inboundRoot)
        let key = inboundKey ?? TopicScheme.routingKey(of: record.topic, inboundRoot: scheme.outboundRoot) ?? Substring(record.topic)
        let frame = InboundFrame(
            topic: record.topic, payload: record.payload, contentType: record.contentType, retained: record.retained, receivedAt: record.receivedAt)
        let verdict = gate.admit(frame, key: key, inbound: inboundKey != nil, replayed: replayed, at: cluster.now())
        for device in verdict.promoted {
            push(.handover(.promoted(device)), bytes: 0, shard: shards.shard(forRoutingKey: device.rawValue), topic: record.topic, ticket: nil)
        }
        for device in verdict.released {
            push(.handover(.lost(device)), bytes: 0, shard: shards.shard(forRoutingKey: device.rawValue), topic: record.topic, ticket: nil)
        }
        guard verdict.role != .none else {
            cluster.metrics.framesNotOwned.increment()
            return .none
        }
        if let (device, kept) = verdict.restore {
            let bytes = kept.context.reduce(0) { total, frame in total + frame.payload.count + frame.topic.utf8.count }
            push(
                .handover(.gained(device, kept, shadow: verdict.role == .shadow)), bytes: bytes, shard: shards.shard(forRoutingKey: key),
                topic: record.topic, ticket: nil)
        }
        if verdict.role == .shadow { cluster.metrics.framesShadowed.increment() }
        return verdict.role
    }

    /// Journals a record bound for `shard`'s worker; nil when it goes on unjournaled (counted).
    private func journal(_ record: JournalRecord, shard: Int) -> JournalTicket? {
        guard let journal else { return nil }
        switch journal.append(record, shard: shard, maxWait: journalMaximumWait) {
        case .stored(let ticket, let waited):
            if waited > 0 { metrics.journalWaitSeconds.increment(by: waited) }
            return ticket
        case .full(let waited):
            bypassJournal(
                waited: waited, level: .warning,
                because: "the journal stayed full for journal.maxWait (journal.sizeBytes \(journal.capacity)); it is bypassed without waiting until it is at most half full")
            return nil
        case .bypassed:
            bypassJournal(waited: 0, level: .warning, because: "the journal is bypassed until it is at most half full (journal.sizeBytes \(journal.capacity))")
            return nil
        case .failed(let waited, let reason):
            bypassJournal(waited: waited, level: .error, because: "cannot write the journal \(journal.path): \(reason)")
            return nil
        case .closed:
            return nil
        }
    }

    /// Counts a frame that goes on without its journal record, and says why (rate-limited).
    private func bypassJournal(waited: Double, level: Logger.Level, because reason: @autoclosure () -> String) {
        metrics.journalWaitSeconds.increment(by: waited)
        metrics.journalBypassed.increment()
        if overload.shouldLog() {
            logger.log(
                level: level, "\(reason()); frames go on unjournaled and would not survive a crash (see gateway_journal_bypassed_total)")
        }
    }

    /// The shard whose worker owns the device of `topic`. Commands under the outbound root
    /// (reset-pose) go to the worker that owns the device too, so they stay in order with its
    /// frames; the roots never overlap.
    private func shard(of topic: String) -> Int {
        let key =
            TopicScheme.routingKey(of: topic, inboundRoot: scheme.inboundRoot)
            ?? TopicScheme.routingKey(of: topic, inboundRoot: scheme.outboundRoot) ?? Substring(topic)
        return shards.shard(forRoutingKey: key)
    }

    private func route(_ record: JournalRecord, ticket: JournalTicket?, shard knownShard: Int? = nil, shadow: Bool = false, replayed: Bool = false) {
        let shard = knownShard ?? shard(of: record.topic)
        let item: WorkItem
        if let device = scheme.parseHeadphoneResetPose(record.topic) {
            item = .resetPose(device, receivedAt: record.receivedAt, retained: record.retained, ticket)
        } else {
            var frame = InboundFrame(
                topic: record.topic, payload: record.payload, contentType: record.contentType, retained: record.retained,
                receivedAt: record.receivedAt)
            frame.parsedTopic = scheme.parseInbound(record.topic)
            frame.journalSequence = ticket?.sequence
            frame.traceParent = record.traceparent.flatMap(TraceParent.init)
            if shadow {
                item = .shadow(frame)
            } else if replayed, let ticket {
                item = .replayed(frame, ticket)
            } else {
                item = .frame(frame, ticket)
            }
        }
        push(item, bytes: record.payload.count + record.topic.utf8.count, shard: shard, topic: record.topic, ticket: ticket)
    }

    private func push(_ item: WorkItem, bytes: Int, shard: Int, topic: String, ticket: JournalTicket?) {
        let maximumWait = maximumHandoffWait
        switch queues[shard].push(item, bytes: bytes, maxWait: maximumWait) {
        case .accepted(let waited):
            if waited > 0 {
                metrics.handoffWaits.increment()
                metrics.handoffBlockedSeconds.increment(by: waited)
            }
        case .acceptedOverCapacity(let waited):
            metrics.handoffWaits.increment()
            metrics.handoffBlockedSeconds.increment(by: waited)
            metrics.handoffOverCapacity.increment()
            if overload.shouldLog() {
                logger.warning(
                    "worker \(shard) is overloaded: the queues stayed full (pipeline.queueCapacity / pipeline.maxBufferedBytes) for pipeline.maxHandoffWait (\(maximumWait) s); admitting frames over the limit (see gateway_handoff_over_capacity_total)"
                )
            }
        case .closed:
            // Kept in the journal (if it is there) for the next start.
            metrics.handoffClosed.increment()
            logger.warning("a frame arrived after shutdown began and was left \(ticket == nil ? "unprocessed" : "in the journal"): \(topic)")
        }
    }
}
