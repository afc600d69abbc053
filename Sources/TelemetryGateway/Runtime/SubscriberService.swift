import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

/// The subscriber connection as a service, last to start and first to stop: replays what the
/// journal kept from an earlier run, then connects (a persistent session makes the broker queue
/// frames while we are away), subscribes, and at shutdown stops receiving before anything else
/// so nothing more is acknowledged to the broker that could be lost.
struct SubscriberService: Service {
    let runtime: GatewayRuntime
    let deadline: ShutdownDeadline
    /// Arm the process watchdog at shutdown (the executable; not in-process tests).
    let exitOnShutdownOverrun: Bool

    func run() async throws {
        let router = InboundRouter(runtime: runtime)
        let logger = runtime.logger
        // Clustered: read the membership first (who owns what) and subscribe before this
        // instance announces itself online (so it receives every frame of the devices it gains).
        if let cluster = runtime.cluster, !(await cluster.view.waitUntilKnown()) {
            logger.notice("cluster: the membership ended before it was known; not subscribing")
        }
        await replayJournal(into: router)
        let subscriber = try MQTTClient(
            configuration: runtime.configuration.subscriberConfiguration(), logger: logger, onMessage: router.receive,
            onEvent: { [metrics = runtime.metrics, health = runtime.operations.health] event in
                metrics.recordConnectionEvent(event, connection: "subscriber")
                health.record(event, connection: "subscriber")
            })
        subscriber.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await subscribe(subscriber)
                runtime.markInboundSubscribed()
                runtime.cluster?.view.markInboundReady()
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }

        deadline.start()
        if exitOnShutdownOverrun {
            deadline.armProcessWatchdog(exitCode: ShutdownReport.incompleteExitCode) {
                logger.critical("shutdown took longer than 2 × pipeline.drainTimeout (\(2 * deadline.drainTimeout) s); exiting; the journal keeps what was not drained")
            }
        }
        logger.info("shutting down: \(runtime.queues.map(\.depth).reduce(0, +)) frames queued")
        await subscriber.shutdown()
        runtime.budget.cancelWaits()
        runtime.journal?.close()
        runtime.queues.forEach { $0.close() }
        runtime.queries.close()
    }

    /// Subscribes once connected, retrying until it succeeds or the service is cancelled.
    private func subscribe(_ subscriber: MQTTClient) async {
        let filters = runtime.configuration.inboundFilters(runtime.scheme)
        while !Task.isCancelled {
            do {
                try await subscriber.waitUntilConnected(timeout: runtime.configuration.mqtt.connectTimeout)
                // QoS 1, not 2, even for devices publishing at QoS 2 (the broker downgrades
                // the delivery): libmosquitto holds an inbound QoS 2 message in memory from its
                // PUBREC until the PUBREL and only then calls us, so a crash in between loses it
                // (the broker resends only the PUBREL), and it enforces our receive maximum on
                // QoS 2 deliveries only, failing a resumed session that has more in flight with a
                // protocol error, reconnect after reconnect. At QoS 1 the journal append before
                // the PUBACK leaves the socket plus deterministic event ids give exactly-once in
                // effect (docs/reliability.md).
                try await subscriber.subscribe(filters, qos: .atLeastOnce)
                runtime.logger.info("subscribed to \(filters.joined(separator: ", "))")
                return
            } catch let error as MQTTTransportError where error.code == .rejectedByBroker {
                // The client re-sends refused filters by itself after a backoff.
                runtime.logger.error("the broker refused the subscription (\(error)); the client retries it")
                return
            } catch {
                runtime.logger.warning("subscriber not ready yet (\(error)); retrying")
            }
        }
    }

    /// Hands the frames an earlier run received but did not finish to the workers, before
    /// subscribing, so they come first in every device's order. Runs on a thread of its own:
    /// the queues may block the pusher.
    private func replayJournal(into router: InboundRouter) async {
        guard let records = runtime.journal?.takeRecovered(), !records.isEmpty else { return }
        runtime.logger.notice("replaying \(records.count) frames the journal kept from the previous run")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                for (ticket, record) in records { router.replay(record, ticket: ticket) }
                continuation.resume()
            }
            thread.name = "journal-replay"
            thread.start()
        }
    }
}
