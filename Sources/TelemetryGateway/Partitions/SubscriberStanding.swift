import MQTTTransport
import Ownership

/// What the subscriber connection asks of this run's standing, as closures over the ownership
/// port, so the subscriber (in `Broker/`) knows nothing of ownership: when it may connect, when
/// a lost connection may come back, and where its connection events go (clustered liveness is
/// serving: docs/scale-out.md). Single mode's sole owner never waits and ignores the events.
struct SubscriberStanding: Sendable {
    /// Returns once this run knows what it holds (clustered: its first registered heartbeat),
    /// or when the calling task is cancelled.
    let ready: @Sendable () async -> Void
    /// Whether a lost connection waits before reconnecting (this run adopted, or its name taken).
    let holdsReconnect: @Sendable () -> Bool
    /// Whether a connection another client took over waits before reconnecting (this run past
    /// its lease's deadline: the other client may be its stand-in).
    let holdsReconnectAfterTakeover: @Sendable () -> Bool
    /// Returns once the store registered this run again: a held reconnect may go.
    let confirmed: @Sendable () async -> Void
    /// The subscriber is about to connect (unreachable until its first CONNACK).
    let starting: @Sendable () -> Void
    /// An event of the subscriber connection.
    let connectionEvent: @Sendable (MQTTClientEvent) -> Void

    /// The standing `ownership` gives.
    init(_ ownership: any OwnershipPort) {
        ready = { await ownership.ready() }
        holdsReconnect = { !ownership.status.mayReconnect }
        holdsReconnectAfterTakeover = { !ownership.status.mayResumeSession }
        confirmed = { await ownership.confirmed() }
        starting = { ownership.subscriberChanged(.unreachable) }
        connectionEvent = { event in
            switch event {
            case .connected: ownership.subscriberChanged(.connected)
            case .disconnected, .connectFailed: ownership.subscriberChanged(.unreachable)
            case .reconnectHeld: ownership.subscriberChanged(.held)
            default: break
            }
        }
    }
}
