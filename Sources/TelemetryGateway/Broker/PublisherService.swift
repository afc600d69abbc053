import CoreMetrics
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
    /// Publishes the retained device state again when the broker kept no session.
    let publisher: OutboundPublisher
    /// Connection events of the publisher's connection.
    let events: AsyncStream<MQTTClientEvent>
    /// Ends once the subscriber has subscribed: online is announced only then.
    let inboundSubscribed: AsyncStream<Never>
    /// `gateway/status` (or the instance's status in clustered modes).
    let status: StatusMessage
    /// Retained messages re-announced per second at most (`retained.reannounceRate`).
    let reannounceRate: Double
    /// Whether the first connection without a session re-announces too. Not a stand-in's: its
    /// publisher is new to the broker, so it never finds a session, while the broker still holds
    /// the dead run's retained messages (it kept the session the stand-in resumes); announcing
    /// them would send every device's last output again. Later connections without a session
    /// (a broker that restarted meanwhile) re-announce.
    var reannouncesAtFirstConnection = true
    /// The retained messages as this instance may publish them now (only its devices', stamped
    /// with its epoch, clustered; all of them in single mode).
    let visible: @Sendable ([OutboundMessage]) -> [OutboundMessage]
    let deadline: ShutdownDeadline
    let shutdownReport: ShutdownReport
    /// Dates the status messages.
    let clock: any GatewayClock
    /// Returns once this run may connect (clustered: the store registered it under its name;
    /// a run whose name another live run holds never connects, so it knocks nobody off).
    let registered: @Sendable () async -> Void
    let logger: Logger

    func run() async {
        let client = publisher.client
        let (status, logger, publisher, reannounceRate, clock, visible) = (status, logger, publisher, reannounceRate, clock, visible)
        let reannouncesAtFirstConnection = reannouncesAtFirstConnection
        let (events, inboundSubscribed) = (events, inboundSubscribed)
        let statusTopic = status.topic
        await cancelWhenGracefulShutdown { [registered] in await registered() }
        guard !Task.isShuttingDownGracefully, !Task.isCancelled else {
            await client.shutdown()
            return
        }
        client.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Ends when the subscriber has subscribed, or when shutdown cancels this task;
                // connection events wait in their stream meanwhile.
                for await _ in inboundSubscribed {}
                var first = true
                for await event in events {
                    guard case .connected(let sessionPresent) = event else { continue }
                    do {
                        try await client.send(status.message(online: true, reason: nil, date: clock.wallTime()))
                        logger.info("published \(statusTopic) online")
                    } catch {
                        logger.error("could not publish \(statusTopic): \(error)")
                    }
                    if !sessionPresent && (!first || reannouncesAtFirstConnection) {
                        _ = await publisher.reannounceRetained(rate: reannounceRate, visible: visible)
                    }
                    first = false
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        // Everything upstream has stopped: say goodbye and wait for the acknowledgements.
        do {
            try await client.send(status.message(online: false, reason: "shutdown", date: clock.wallTime()))
        } catch {
            logger.error("could not publish \(statusTopic) offline: \(error)")
        }
        let timeout = deadline.flushRemaining
        if await client.flush(timeout: timeout) {
            logger.info("published \(statusTopic) offline")
        } else {
            let outstanding = client.statistics.publishesInFlight
            shutdownReport.record("\(outstanding) publishes still unacknowledged after \(timeout) s")
            logger.error(
                "\(outstanding) publishes still unacknowledged when the shutdown deadline came (2 × pipeline.drainTimeout); their frames stay in the journal for the next start")
        }
        await client.shutdown()
    }
}
