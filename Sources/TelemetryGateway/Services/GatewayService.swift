import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import Metrics
import Prometheus
import RecorderStore
import ServiceLifecycle
import TelemetryCore
import UnixSignals

/// The gateway: subscribes to the device topics, processes every frame on the worker that owns
/// its device, and publishes what it derives.
///
/// Two broker connections keep backpressure safe: the **subscriber** only subscribes, so its
/// network thread may block on a full worker queue (which stops it reading the socket and
/// pushes back on the broker); the **publisher** carries the will and all outbound events and
/// never blocks a callback.
///
/// Shutdown (SIGTERM/SIGINT through the service group) drains in order: stop receiving, let
/// the workers finish every queued frame, publish `gateway/status` offline, wait for every
/// publish to be acknowledged (bounded by `pipeline.drainTimeout`), disconnect.
public final class GatewayService: Service {
    /// The gateway's version, published in `gateway/status`.
    public static let version = ProductVersion.current

    private let configuration: GatewayConfiguration
    private let logger: Logger
    private let metrics: GatewayMetrics
    private let recorderMetrics: RecorderMetrics
    private let prometheus: PrometheusCollectorRegistry?
    private let scheme: TopicScheme
    private let shardCount: Int
    private let accessPolicy: AccessPolicy
    // [operations hook] health, fleet view, latency: see Operations/GatewayOperations.swift.
    private let operations: GatewayOperations

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: a validated configuration.
    ///   - logger: the logger; connection events log at info, overload at warning.
    ///   - metricsFactory: where metrics go (the executable passes its Prometheus factory).
    ///   - prometheus: the registry rendered on the retained `gateway/metrics` topic, if any.
    ///   - accessPolicy: the device registry and capability table loaded at start; SIGHUP
    ///     reloads them from `configuration.accessPolicyFiles`.
    ///   - operations: where health, fleet and latency are reported (the HTTP service reads it).
    public init(
        configuration: GatewayConfiguration,
        accessPolicy: AccessPolicy,
        logger: Logger,
        metricsFactory: any MetricsFactory,
        prometheus: PrometheusCollectorRegistry?,
        operations: GatewayOperations? = nil
    ) {
        self.operations = operations ?? GatewayOperations(configuration: configuration, metricsFactory: metricsFactory, logger: logger)
        self.configuration = configuration
        self.logger = logger
        self.prometheus = prometheus
        self.accessPolicy = accessPolicy
        scheme = TopicScheme(inboundRoot: configuration.topics.inboundRoot, outboundRoot: configuration.topics.outboundRoot)
        shardCount = configuration.pipeline.workers > 0 ? configuration.pipeline.workers : ProcessInfo.processInfo.activeProcessorCount
        metrics = GatewayMetrics(factory: metricsFactory, shards: shardCount)
        recorderMetrics = RecorderMetrics(factory: metricsFactory)
    }

    public func run() async throws {
        let startedAt = Date().timeIntervalSince1970
        let (connectionEvents, connectionEventSink) = AsyncStream.makeStream(of: MQTTClientEvent.self)
        let publisher = try MQTTClient(
            configuration: configuration.publisherConfiguration(will: statusMessage(online: false, reason: "connectionLost", startedAt: startedAt)),
            logger: logger,
            onEvent: { [metrics, operations] event in
                metrics.recordConnectionEvent(event, connection: "publisher")
                operations.health.record(event, connection: "publisher")  // [operations hook]
                connectionEventSink.yield(event)
            })
        publisher.start()
        logger.info(
            "wearable-gateway \(Self.version) starting: broker \(configuration.mqtt.broker), \(shardCount) workers, inbound \(scheme.inboundFilter), outbound \(scheme.outboundRoot)/#")

        let recorder = RecorderRuntime(configuration: configuration, scheme: scheme, logger: logger, metrics: recorderMetrics)
        let queues = (0..<shardCount).map { _ in HandoffQueue<WorkItem>(capacity: configuration.pipeline.queueCapacity) }
        let queries = HandoffQueue<RecorderRequest>(capacity: configuration.recorder.queryQueueCapacity)
        operations.watchQueues(queues, queries: queries, configuration: configuration)  // [operations hook]
        let subscriber = try MQTTClient(
            configuration: configuration.subscriberConfiguration(),
            logger: logger,
            onMessage: makeRouter(queues: queues, queries: queries),
            onEvent: { [metrics, operations] event in
                metrics.recordConnectionEvent(event, connection: "subscriber")
                operations.health.record(event, connection: "subscriber")  // [operations hook]
            })

        await withTaskGroup(of: Void.self) { group in
            // (Re)announce online on every publisher connection: a broker restarted without
            // persistence has forgotten the retained status.
            group.addTask {
                for await event in connectionEvents where event == .connected(sessionPresent: false) || event == .connected(sessionPresent: true) {
                    await self.publishStatus(online: true, startedAt: startedAt, on: publisher)
                }
            }
            // The query task drains like a worker: requests taken before shutdown are answered.
            let workersDone = CountdownLatch(count: shardCount + 1)
            for shard in 0..<shardCount {
                group.addTask {
                    await self.runWorker(shard: shard, queue: queues[shard], recorder: recorder, publisher: publisher)
                    workersDone.arrive()
                }
            }
            group.addTask {
                await self.answerQueries(queries, recorder: recorder, publisher: publisher)
                workersDone.arrive()
            }
            await withTaskGroup(of: Void.self) { periodic in
                periodic.addTask { await self.runTicker(queues: queues) }
                periodic.addTask { await self.reloadPolicyOnHangup(queues: queues) }
                periodic.addTask { await self.runMetricsLoop(queues: queues, publisher: publisher) }
                periodic.addTask { await recorder.runPruning() }
                periodic.addTask { await self.operations.runRoundTripProbe(publisher: publisher) }  // [operations hook]
                await self.subscribeAndServe(subscriber)
                periodic.cancelAll()
            }

            // Graceful shutdown: stop receiving first, so nothing more is acknowledged to the
            // broker that we could fail to process; then drain.
            logger.info("shutting down: draining \(queues.map(\.depth).reduce(0, +)) queued frames")
            await subscriber.shutdown()
            queues.forEach { $0.close() }
            queries.close()
            let drainedInTime = await self.waitOrTimeout(seconds: configuration.pipeline.drainTimeout) { await workersDone.wait() }
            if !drainedInTime {
                logger.error("workers did not drain within pipeline.drainTimeout (\(configuration.pipeline.drainTimeout) s); abandoning outstanding publishes")
                await publisher.shutdown()
            }
            await workersDone.wait()
            await self.publishMetrics(queues: queues, publisher: publisher)
            await self.publishStatus(online: false, startedAt: startedAt, on: publisher)
            if !(await publisher.flush(timeout: configuration.pipeline.drainTimeout)) {
                logger.error("publishes still unacknowledged after pipeline.drainTimeout; they are lost")
            }
            connectionEventSink.finish()
            await publisher.shutdown()
        }
        logger.info("wearable-gateway stopped")
    }

    // MARK: Receiving

    /// The subscriber's message handler: runs on its network thread, copies nothing beyond what
    /// the transport already copied, and hands the frame to the worker owning the device.
    private func makeRouter(queues: [HandoffQueue<WorkItem>], queries: HandoffQueue<RecorderRequest>) -> MQTTClient.MessageHandler {
        let router = ShardRouter(shardCount: queues.count)
        let scheme = scheme
        let inboundRoot = scheme.inboundRoot
        let maximumWait = configuration.pipeline.maximumHandoffWait
        let metrics = metrics
        let logger = logger
        let overload = RateLimitedLog(interval: 10)
        let health = operations.health
        return { message in
            health.handlerEntered()  // [operations hook] a stuck network thread shows in /healthz
            defer { health.handlerLeft() }
            metrics.messagesReceived.increment()
            if let device = scheme.parseRecorderQuery(message.topic) {
                // Queries read the store, which may take a while: they have their own task so
                // device frames never wait behind them.
                let request = RecorderRequest(
                    device: device, payload: message.payload, responseTopic: message.properties.responseTopic,
                    correlationData: message.properties.correlationData, receivedAt: Date().timeIntervalSince1970)
                if queries.push(request, maxWait: maximumWait) == .closed {
                    metrics.handoffClosed.increment()
                }
                return
            }
            // Commands under the outbound root (reset-pose) go to the worker that owns the device
            // too, so they stay in order with its frames; the roots never overlap.
            let key =
                TopicScheme.routingKey(of: message.topic, inboundRoot: inboundRoot)
                ?? TopicScheme.routingKey(of: message.topic, inboundRoot: scheme.outboundRoot) ?? Substring(message.topic)
            let shard = router.shard(forRoutingKey: key)
            let receivedAt = Date().timeIntervalSince1970
            let item: WorkItem
            if let device = scheme.parseHeadphoneResetPose(message.topic) {
                item = .resetPose(device, receivedAt: receivedAt, retained: message.retain)
            } else {
                item = .frame(
                    InboundFrame(
                        topic: message.topic, payload: message.payload, contentType: message.properties.contentType, retained: message.retain,
                        receivedAt: receivedAt))
            }
            switch queues[shard].push(item, maxWait: maximumWait) {
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
                        "worker \(shard) is overloaded: its queue stayed full for pipeline.maxHandoffWait (\(maximumWait) s); admitting frames over capacity (see gateway_handoff_over_capacity_total)")
                }
            case .closed:
                metrics.handoffClosed.increment()
                logger.warning("a frame arrived after shutdown began and was not processed: \(message.topic)")
            }
        }
    }

    /// Connects the subscriber, subscribes to the inbound filter, and waits for shutdown.
    private func subscribeAndServe(_ subscriber: MQTTClient) async {
        subscriber.start()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await subscriber.waitUntilConnected(timeout: configuration.mqtt.connectTimeout)
                let filters = [scheme.inboundFilter, scheme.headphoneResetPoseFilter, scheme.recorderQueryFilter]
                try await subscriber.subscribe(filters, qos: .exactlyOnce)
                logger.info("subscribed to \(filters.joined(separator: ", "))")
                break
            } catch {
                logger.warning("subscriber not ready yet (\(error)); retrying")
            }
        }
        try? await gracefulShutdown()
    }

    // MARK: Workers

    /// Processes one shard's frames in arrival order until its queue is closed and empty.
    private func runWorker(shard: Int, queue: HandoffQueue<WorkItem>, recorder: RecorderRuntime, publisher: MQTTClient) async {
        var processor = FrameProcessor(
            configuration: .init(
                scheme: scheme, maxPayloadBytes: configuration.pipeline.maximumPayloadBytes,
                errorReportInterval: configuration.pipeline.errorReportInterval, accessPolicy: accessPolicy,
                derivation: configuration.derivation, deadLetters: configuration.deadLetters.policy))
        // The tremor minutes of this shard's devices: owned here, like their derivation state.
        var tremorSchedule = recorder.makeSchedule()
        while let batch = await queue.next() {
            operations.health.beat("worker-\(shard)", every: 0.5)  // [operations hook] ticks arrive twice a second
            for item in batch {
                switch item {
                case .frame(let frame):
                    let result = processor.process(frame)
                    await publish(result.messages, on: publisher)
                    operations.derived(result.messages, receivedAt: frame.receivedAt)  // [operations hook]
                    if case .recorderAccelerometer(let chunk)? = result.frame, case .device(let device, _) = scheme.parseInbound(frame.topic) {
                        // Stored before the frame is counted, so a query after the count sees it.
                        let tremor = await recorder.store(chunk, device: device, receivedAt: frame.receivedAt, schedule: &tremorSchedule)
                        await publish(tremor, on: publisher)
                    }
                    // Counted once its messages are handed over, so a test (or an operator)
                    // that sees the count also sees what the frame produced.
                    metrics.record(result)
                case .tick(let now):
                    await publish(processor.flush(now: now), on: publisher)
                    await publish(await recorder.tick(now: now, schedule: &tremorSchedule), on: publisher)
                case .resetPose(let device, let receivedAt, let retained):
                    if processor.resetHeadphonePose(of: device, at: receivedAt, retained: retained) {
                        logger.debug("reset the head pose reference of \(device)")
                    }
                case .policy(let policy, let date):
                    await publish(processor.replaceAccessPolicy(policy, date: date), on: publisher)
                }
            }
        }
        // Report what the open error windows still hold before stopping.
        await publish(processor.finish(), on: publisher)
        operations.health.retire("worker-\(shard)")  // [operations hook]
        logger.debug("worker \(shard) drained")
    }

    /// Answers recorder queries one after the other until the queue is closed and empty.
    private func answerQueries(_ queries: HandoffQueue<RecorderRequest>, recorder: RecorderRuntime, publisher: MQTTClient) async {
        while let batch = await queries.next() {
            recorderMetrics.queryQueueDepth.record(queries.depth)
            for request in batch {
                await recorder.answer(request) { message in
                    try await publisher.send(message)
                    metrics.published.increment()
                }
            }
        }
    }

    private func publish(_ messages: [OutboundMessage], on publisher: MQTTClient) async {
        for message in messages {
            do {
                try await publisher.send(message.mqttMessage)
                metrics.published.increment()
                if message.topic.hasSuffix("/errors") { metrics.errorEvents.increment() }
                operations.published(message)  // [operations hook] feeds the fleet page
            } catch {
                metrics.publishFailures.increment()
                logger.error("could not publish \(message.topic): \(error)")
            }
        }
    }

    /// Reloads the registry and capability table on SIGHUP and hands a changed policy to every
    /// worker through its queue, so it takes effect between frames: nothing restarts, no frame
    /// is dropped, learnt device state is kept. A bad file keeps the old policy (logged).
    private func reloadPolicyOnHangup(queues: [HandoffQueue<WorkItem>]) async {
        let files = configuration.accessPolicyFiles
        var current = accessPolicy
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            logger.info("SIGHUP: reloading \(files.registry ?? "(no registry)") and \(files.capabilities)")
            let outcome = AccessPolicyLoader.reload(files, current: current)
            outcome.log(to: logger, files: files)
            guard case .replaced(let loaded) = outcome else { continue }
            current = loaded.policy
            let now = Date().timeIntervalSince1970
            for queue in queues { queue.pushControl(.policy(loaded.policy, now)) }
        }
    }

    /// Sends each worker the time twice a second so it can close error windows.
    private func runTicker(queues: [HandoffQueue<WorkItem>]) async {
        let period = min(0.5, configuration.pipeline.errorReportInterval / 2)
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(period))
            operations.health.beat("ticker", every: period)  // [operations hook]
            let now = Date().timeIntervalSince1970
            for queue in queues { queue.pushControl(.tick(now)) }
        }
    }

    // MARK: Status and metrics

    private func statusMessage(online: Bool, reason: String?, startedAt: Double) -> MQTTMessage {
        var writer = JSONWriter()
        writer.object {
            $0.field("state", online ? "online" : "offline")
            $0.field("version", Self.version)
            $0.field("startedAt", startedAt)
            $0.field("date", online || reason == "shutdown" ? Date().timeIntervalSince1970 : startedAt)
            $0.field("reason", reason)
        }
        return MQTTMessage(
            topic: scheme.statusTopic, payload: writer.bytes, qos: .atLeastOnce, retain: true,
            properties: MQTTProperties(contentType: "application/json"))
    }

    private func publishStatus(online: Bool, startedAt: Double, on publisher: MQTTClient) async {
        do {
            try await publisher.publish(statusMessage(online: online, reason: online ? nil : "shutdown", startedAt: startedAt))
            logger.info("published \(scheme.statusTopic) \(online ? "online" : "offline")")
        } catch {
            logger.error("could not publish \(scheme.statusTopic): \(error)")
        }
    }

    private func runMetricsLoop(queues: [HandoffQueue<WorkItem>], publisher: MQTTClient) async {
        let interval = configuration.metrics.publishInterval
        var previous = MQTTClientStatistics()
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(interval > 0 ? interval : 1))
            operations.health.beat("metrics", every: interval > 0 ? interval : 1)  // [operations hook]
            previous = metrics.sample(queues: queues, publisher: publisher.statistics, previous: previous)
            if interval > 0, !Task.isCancelled { await publishMetrics(queues: queues, publisher: publisher) }
        }
    }

    /// Publishes the Prometheus text of every metric, retained, on `gateway/metrics`.
    private func publishMetrics(queues: [HandoffQueue<WorkItem>], publisher: MQTTClient) async {
        guard let prometheus, configuration.metrics.publishInterval > 0 else { return }
        var buffer: [UInt8] = []
        prometheus.emit(into: &buffer)
        do {
            try await publisher.send(
                MQTTMessage(
                    topic: scheme.metricsTopic, payload: buffer, qos: .atLeastOnce, retain: true,
                    properties: MQTTProperties(contentType: "text/plain; version=0.0.4")))
        } catch {
            logger.debug("could not publish metrics: \(error)")
        }
    }

    /// Runs `operation`; returns false if it had not finished after `seconds` (it keeps running).
    private func waitOrTimeout(seconds: Double, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await operation()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return false
            }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
    }
}
