import GatewayJournal
import CoreMetrics
import Foundation
import Locking
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

/// The subscriber connection as a service, last to start and first to stop: replays what the
/// journal kept from an earlier run, then connects (a persistent session makes the broker queue
/// frames while we are away), subscribes, and at shutdown stops receiving before anything else
/// so nothing more is acknowledged to the broker that could be lost.
struct SubscriberService: Service {
    /// Makes the subscribe-only connection.
    let connections: BrokerConnections
    let configuration: MQTTClientConfiguration
    /// The filters to subscribe to.
    let filters: [String]
    /// Seconds to wait for a connection before a subscription attempt is retried.
    let connectTimeout: Double
    /// Journals and routes what the connection receives (and what the journal replays).
    let router: InboundRouter
    let journal: InboundJournal?
    /// Closed at shutdown so the workers finish what is queued.
    let queues: [HandoffQueue<WorkItem>]
    let queries: HandoffQueue<RecorderRequest>
    let budget: BufferBudget
    let deadline: ShutdownDeadline
    let metrics: GatewayMetrics
    let health: RuntimeHealth
    /// Where the metrics read the connection's counters.
    let statistics: SubscriberStatistics
    /// When the subscriber may connect and reconnect, and where its connection events go
    /// (clustered: this run's ownership).
    let standing: SubscriberStanding
    /// How device frames reach the subscriber (per device of held partitions, clustered).
    let subscriptions: any InboundSubscriptions
    /// Called once the broker answered the first subscription (the publisher announces online then).
    let onSubscribed: @Sendable () -> Void
    let logger: Logger
    /// Arm the process watchdog at shutdown (the executable; not in-process tests).
    let exitOnShutdownOverrun: Bool

    func run() async throws {
        let router = router
        let logger = logger
        // Set once the subscriber exists; before that, a shutdown has nothing to stop receiving.
        let receiving = LockedState(false)
        let subscriber: (any InboundConnection)? = try await withGracefulShutdownHandler { () async throws -> (any InboundConnection)? in
            // What this instance holds first (clustered: its first heartbeat), so the journal's
            // records and the first frames go by it. A run that never registers (its name held
            // by another live run) never connects: it would take that run's broker session.
            await cancelWhenGracefulShutdown { [standing] in await standing.ready() }
            guard !Task.isShuttingDownGracefully, !Task.isCancelled, await replayJournal(into: router) else { return nil }
            // A connection that ends while this instance is adopted, or that another client took
            // over while this instance is past its lease's deadline, reconnects only once the
            // store registered this run again (a single gateway is never either).
            var configuration = configuration
            configuration.holdsReconnect = standing.holdsReconnect
            configuration.holdsReconnectAfterTakeover = standing.holdsReconnectAfterTakeover
            let made = LockedState<(any InboundConnection)?>(nil)
            let subscriber = try connections.makeSubscriber(
                configuration, logger, router.receive,
                { [metrics, health, standing] event in
                    metrics.recordConnectionEvent(event, connection: "subscriber")
                    health.record(event, connection: "subscriber")
                    // Clustered liveness is serving: a subscriber that cannot reach the broker
                    // for half a lease time stops the renewals (LeasedOwnership).
                    standing.connectionEvent(event)
                    router.connectionEvent(event)
                    if case .reconnectHeld = event {
                        Task {
                            await standing.confirmed()
                            made.withLock { $0 }?.resumeReconnecting()
                        }
                    }
                })
            made.withLock { $0 = subscriber }
            subscriptions.attach(subscriber)
            statistics.attach(subscriber)
            receiving.withLock { $0 = true }
            // Down until its first CONNACK (the journal's replay before does not count).
            standing.starting()
            subscriber.start()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await subscribe(subscriber)
                    onSubscribed()
                }
                try? await gracefulShutdown()
                group.cancelAll()
            }
            return subscriber
        } onGracefulShutdown: {
            // The shutdown's time bound runs from the signal, even when it comes during the
            // start-up's journal replay: the replay stops and the queues close at once.
            beginShutdown()
            if !receiving.withLock({ $0 }) { closeQueues() }
        }

        beginShutdown()
        logger.info("shutting down: \(queues.map(\.depth).reduce(0, +)) frames queued")
        await subscriber?.shutdown()
        closeQueues()
    }

    /// Starts the shutdown's clock and, in the executable, the watchdog that ends the process
    /// at its bound (once; later calls do nothing).
    private func beginShutdown() {
        guard deadline.start(), exitOnShutdownOverrun else { return }
        let logger = logger
        deadline.armProcessWatchdog(exitCode: ShutdownReport.incompleteExitCode) { [deadline] in
            logger.critical("shutdown took longer than 2 × pipeline.drainTimeout (\(2 * deadline.drainTimeout) s); exiting; the journal keeps what was not drained")
        }
    }

    /// Wakes whatever waits to queue a frame and closes the queues: the workers finish what is
    /// queued, and the journal keeps everything else for the next start.
    private func closeQueues() {
        budget.cancelWaits()
        journal?.close()
        queues.forEach { $0.close() }
        queries.close()
    }

    /// Subscribes once connected, retrying until it succeeds or the service is cancelled.
    private func subscribe(_ subscriber: any InboundConnection) async {
        while !Task.isCancelled {
            do {
                try await subscriber.waitUntilConnected(timeout: connectTimeout)
                // QoS 1, not 2, even for devices publishing at QoS 2 (the broker downgrades
                // the delivery): libmosquitto holds an inbound QoS 2 message in memory from its
                // PUBREC until the PUBREL and only then calls us, so a crash in between loses it
                // (the broker resends only the PUBREL), and it enforces our receive maximum on
                // QoS 2 deliveries only, failing a resumed session that has more in flight with a
                // protocol error, reconnect after reconnect. At QoS 1 the journal append before
                // the PUBACK leaves the socket plus deterministic event ids give exactly-once in
                // effect (docs/reliability.md).
                // Clustered: the identifier tells a discovery stream's copy through the discovery
                // filter from the one through a device's filter, and a resumed session is not
                // sent the fleet's retained messages again (PartitionSubscriptions).
                try await subscriber.subscribe(filters, qos: .atLeastOnce, options: subscriptions.filterOptions)
                logger.info("subscribed to \(filters.joined(separator: ", "))")
                return
            } catch let error as MQTTTransportError where error.code == .rejectedByBroker {
                // The client re-sends refused filters by itself after a backoff.
                logger.error("the broker refused the subscription (\(error)); the client retries it")
                return
            } catch {
                logger.warning("subscriber not ready yet (\(error)); retrying")
            }
        }
    }

    /// Hands the frames an earlier run received but did not finish to the workers, before
    /// subscribing, so they come first in every device's order. Runs on a thread of its own:
    /// the queues may block the pusher. Stops when the shutdown begins (the records not handed
    /// on stay in the journal).
    /// - Returns: false when the shutdown began during the replay.
    private func replayJournal(into router: InboundRouter) async -> Bool {
        guard let records = journal?.takeRecovered(), !records.isEmpty else { return !deadline.hasStarted }
        logger.notice("replaying \(records.count) frames the journal kept from the previous run")
        let handedOn = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            // Strong, like the off-pool msync (InboundJournal.syncOffPool): if this closure holds
            // the last reference, the journal's deinit (an msync) runs on this thread, not on the
            // cooperative pool.
            let thread = Thread { [router, deadline] in
                CurrentThread.setName("journal-replay")
                var handedOn = 0
                for (ticket, record) in records {
                    guard !deadline.hasStarted else { break }
                    router.replay(record, ticket: ticket)
                    handedOn += 1
                }
                continuation.resume(returning: handedOn)
            }
            thread.start()
        }
        guard handedOn == records.count else {
            logger.notice("shutdown during the journal replay: \(records.count - handedOn) of \(records.count) frames stay in the journal for the next start")
            return false
        }
        return !deadline.hasStarted
    }
}
