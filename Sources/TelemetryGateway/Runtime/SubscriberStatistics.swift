import Locking
import MQTTTransport

/// Where the metrics read the subscribe-only connection's counters: the connection exists only
/// once ``SubscriberService`` made it (after the journal's replay), the metrics from the start.
final class SubscriberStatistics: Sendable {
    private let connection = LockedState<(any InboundConnection)?>(nil)

    /// Reads `subscriber`'s counters from now on.
    func attach(_ subscriber: any InboundConnection) {
        connection.withLock { $0 = subscriber }
    }

    /// The connection's counters so far; zero before it exists.
    var current: MQTTClientStatistics {
        connection.withLock { $0 }?.statistics ?? MQTTClientStatistics()
    }
}
