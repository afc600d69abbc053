/// Connection life-cycle events, for logs and metrics.
public enum MQTTClientEvent: Sendable, Equatable {
    /// A connection attempt started (attempt counts consecutive failures before it).
    case connecting(attempt: Int)
    /// CONNACK accepted. `sessionPresent` is false when the broker kept no session for us,
    /// in which case the client has re-sent its subscriptions.
    case connected(sessionPresent: Bool)
    /// The connection ended; `reason` is libmosquitto's or the broker's explanation.
    case disconnected(reason: String)
    /// The broker refused the connection (bad credentials, not authorized, …).
    case refused(reason: String)
    /// An attempt failed before CONNACK (DNS, TCP, TLS, timeout); a retry follows after `retryIn` s.
    case connectFailed(reason: String, retryIn: Double)
    /// The broker acknowledged (SUBACK) these filters: messages matching them flow from now on.
    case subscribed(filters: [String])
    /// The broker rejected a subscription the client re-sent after reconnecting.
    case subscriptionFailed(filter: String, reasonCode: Int)
    /// The broker ended the connection because another client connected with the same client
    /// id (MQTT 5 reason code 0x8E). The client waits the longest backoff before reconnecting.
    case sessionTakenOver
    /// The connection ended while the owner's hold (``MQTTClientConfiguration/holdsReconnect``)
    /// said not to reconnect: no attempt until ``MQTTClient/resumeReconnecting()``.
    case reconnectHeld
}
