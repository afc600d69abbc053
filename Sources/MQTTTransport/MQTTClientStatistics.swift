/// A snapshot of one client's counters, for metrics.
public struct MQTTClientStatistics: Sendable, Equatable {
    /// Messages received from the broker and handed to the message handler.
    public var messagesReceived: UInt64 = 0
    /// Bytes of the messages received (topic and payload), as handed to the message handler.
    public var bytesReceived: UInt64 = 0
    /// Times the network thread paused to let messages gather
    /// (``MQTTClientConfiguration/receiveCoalescing``); messages received over pauses is how
    /// many it read per wake-up.
    public var receivePauses: UInt64 = 0
    /// Groups of messages the network thread read in one go, their PUBACKs written together;
    /// messages received over groups is how many a group held.
    public var readGroups: UInt64 = 0
    /// Topic filters the client holds (re-sent after a reconnect without a session).
    public var subscriptionsHeld: Int = 0
    /// SUBSCRIBE packets sent whose SUBACK has not arrived yet.
    public var subscriptionsPending: Int = 0
    /// Publishes the broker acknowledged (QoS 1/2) or that were written (QoS 0).
    public var publishesAcknowledged: UInt64 = 0
    /// Publishes that failed: refused by libmosquitto, rejected by the broker, or lost.
    public var publishesFailed: UInt64 = 0
    /// Publishes currently outstanding.
    public var publishesInFlight: Int = 0
    /// Times a publisher had to wait for a free in-flight slot (backpressure).
    public var publishWaits: UInt64 = 0
    /// Successful connections (CONNACK accepted), the first included.
    public var connections: UInt64 = 0
    /// Connections lost or attempts failed.
    public var connectionFailures: UInt64 = 0
    /// Times the broker ended our session because another client used our client id.
    public var sessionTakeovers: UInt64 = 0
    /// Subscriptions the broker refused (each is retried after a backoff).
    public var subscriptionsRefused: UInt64 = 0
    /// Whether the client is connected right now.
    public var isConnected: Bool = false

    /// Creates zeroed statistics.
    public init() {}
}
