import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

/// The publisher connection as a service, first to start and last to stop: announces
/// `gateway/status` online on every connection (a restarted broker may have lost it), the
/// first time only once the subscriber has subscribed (online means frames are heard),
/// re-announces all retained device state when the broker kept no session for us, and at the
/// end publishes offline and waits (bounded) for every acknowledgement.
struct PublisherService: Service {
    let runtime: GatewayRuntime
    let deadline: ShutdownDeadline

    func run() async {
        let client = runtime.publisher.client
        let status = StatusMessage(scheme: runtime.scheme, startedAt: runtime.startedAt, instance: runtime.cluster?.instance)
        let logger = runtime.logger
        client.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Ends when the subscriber has subscribed, or when shutdown cancels this task;
                // connection events wait in their stream meanwhile.
                for await _ in runtime.inboundSubscribed {}
                for await event in runtime.publisherEvents {
                    guard case .connected(let sessionPresent) = event else { continue }
                    do {
                        try await client.send(status.message(online: true, reason: nil))
                        logger.info("published \(runtime.scheme.statusTopic) online")
                    } catch {
                        logger.error("could not publish \(runtime.scheme.statusTopic): \(error)")
                    }
                    if !sessionPresent {
                        _ = await runtime.publisher.reannounceRetained(rate: runtime.configuration.retained.reannounceRate)
                    }
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        // Everything upstream has stopped: say goodbye and wait for the acknowledgements.
        do {
            try await client.send(status.message(online: false, reason: "shutdown"))
        } catch {
            logger.error("could not publish \(runtime.scheme.statusTopic) offline: \(error)")
        }
        let timeout = deadline.flushRemaining
        if await client.flush(timeout: timeout) {
            logger.info("published \(runtime.scheme.statusTopic) offline")
        } else {
            let outstanding = client.statistics.publishesInFlight
            runtime.shutdownReport.record("\(outstanding) publishes still unacknowledged after \(timeout) s")
            logger.error(
                "\(outstanding) publishes still unacknowledged when the shutdown deadline came (2 × pipeline.drainTimeout); their frames stay in the journal for the next start")
        }
        await client.shutdown()
    }
}
