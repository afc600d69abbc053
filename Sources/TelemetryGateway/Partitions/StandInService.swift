import Foundation
import Logging
import MQTTTransport
import Ownership
import ServiceLifecycle

/// The last service of a stand-in's group (``AdoptionService``). It returns once the stand-in
/// holds the dead run's partitions and has received everything the dead run's broker session
/// queued: its subscriber resumed that session, and a mark of its own, subscribed and published
/// then, arrives behind the backlog (``PartitionSubscriptions/deliverMark(topic:publish:)``).
/// Its return stops the group gracefully: the ownership hands every partition over
/// make-before-break, and the subscriber ends the session last.
struct StandInService: Service {
    let ownership: any OwnershipPort
    /// Ends once the subscriber's first subscription is answered.
    let subscribed: AsyncStream<Never>
    let subscriptions: PartitionSubscriptions
    /// The mark's topic, this stand-in's own (`gateway/instances/{name}/stand-in/{incarnation}`).
    let markTopic: String
    /// Publishes the mark (the stand-in's publisher connection).
    let connection: any OutboundConnection
    let clock: any GatewayClock
    let logger: Logger

    func run() async throws {
        // A graceful stop meanwhile (the adopter stops, or the stand-in's time limit) ends the
        // wait; the group then stops as it would have.
        let started = clock.monotonicNow()
        do {
            try await cancelWhenGracefulShutdown {
                await ownership.ready()
                for await _ in subscribed {}
                try Task.checkCancellation()
                try await subscriptions.deliverMark(topic: markTopic) {
                    try await connection.publish(MQTTMessage(topic: markTopic, payload: Array("backlog delivered".utf8), qos: .atLeastOnce))
                }
            }
            logger.notice("stand-in: the dead run's session delivered its backlog \(String(format: "%.1f", clock.secondsSince(started))) s after the start; handing over")
        } catch {
            logger.warning("stand-in: stopped before the session's backlog was known to be delivered (\(error)); handing over")
        }
    }
}
