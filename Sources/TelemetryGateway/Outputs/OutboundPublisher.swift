import CoreMetrics
import Logging
import MQTTTransport
import TelemetryCore

/// Publishes what the workers derive on the publisher connection: remembers retained state
/// for re-announcing, ties each publish's acknowledgement to the journal record of the frame
/// that produced it, and retries a publish libmosquitto refused for a passing reason.
final class OutboundPublisher: Sendable {
    /// The publishing connection.
    let client: any OutboundConnection
    let retained: RetainedStateCache
    private let metrics: GatewayMetrics
    private let operations: GatewayOperations
    private let logger: Logger
    private let failureLog: RateLimitedLog
    /// Where retries back off and re-announcing keeps its rate.
    private let clock: any GatewayClock

    /// Attempts for one publish before it is given up (counted in `gateway_publish_failures_total`).
    static let maximumAttempts = 3

    init(
        client: any OutboundConnection, retained: RetainedStateCache, metrics: GatewayMetrics, operations: GatewayOperations, clock: any GatewayClock,
        logger: Logger
    ) {
        self.client = client
        self.retained = retained
        self.metrics = metrics
        self.operations = operations
        self.clock = clock
        failureLog = RateLimitedLog(interval: 10, clock: clock)
        self.logger = logger
    }

    /// Publishes `messages` in order. Each one that the broker acknowledges (or refuses) counts
    /// one part of `countdown`; one that could not be handed over at all never does, so the
    /// frame stays in the journal.
    func publish(_ messages: [OutboundMessage], countdown: ReleaseCountdown? = nil) async {
        for message in messages {
            retained.record(message)
            if await send(message, countdown: countdown) {
                metrics.published.increment()
                if message.reportsError { metrics.errorEvents.increment() }
                operations.published(message)  // feeds the fleet page
            }
        }
    }

    /// Hands one message to the client; returns whether it was taken.
    private func send(_ message: OutboundMessage, countdown: ReleaseCountdown?) async -> Bool {
        let mqttMessage = message.mqttMessage
        for attempt in 1...Self.maximumAttempts {
            do {
                if let countdown {
                    try await client.send(mqttMessage, onComplete: countdown.publishHandler(qos: message.qos))
                } else {
                    try await client.send(mqttMessage)
                }
                return true
            } catch let error as MQTTTransportError where error.code != .shutdown && attempt < Self.maximumAttempts && !Task.isCancelled {
                metrics.publishRetries.increment()
                try? await clock.sleep(for: Double(50 << attempt) / 1000)
            } catch {
                metrics.publishFailures.increment()
                if failureLog.shouldLog() {
                    logger.error("could not publish \(message.topic) (after \(attempt) attempts): \(error)")
                }
                return false
            }
        }
        return false
    }

    /// Publishes every remembered retained message again, at most `rate` per second: the broker
    /// restarted without persistence and a dashboard subscribing now would otherwise see no
    /// device until each one changes. Only what `visible` lets through (the ownership port: the
    /// devices this instance publishes for now, stamped with its epoch).
    func reannounceRetained(rate: Double, visible: ([OutboundMessage]) -> [OutboundMessage]) async -> Int {
        let messages = visible(retained.snapshot())
        guard !messages.isEmpty else { return 0 }
        logger.notice("publisher connected without a session: re-announcing \(messages.count) retained device topics")
        let start = clock.monotonicNow()
        var sent = 0
        for message in messages {
            if Task.isCancelled { break }
            if await send(message, countdown: nil) {
                sent += 1
                metrics.retainedReannounced.increment()
            }
            // Rate limit: never ahead of `rate` messages per second since the start.
            let due = start + .seconds(Double(sent) / rate)
            if due > clock.monotonicNow() { try? await clock.sleep(until: due) }
        }
        return sent
    }
}
