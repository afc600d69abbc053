/// Whether headphones are connected, as published on `gateway/{id}/headphone/connection`.
public enum HeadphoneConnectionState: String, Sendable, CaseIterable, Codable {
    /// The buds are in (or the headphones on) and motion is expected.
    case connected
    /// The buds are out, the stream went silent, or the bridge went offline.
    case disconnected
}

/// Why the headphone connection state was set (the `reason` field).
public enum HeadphoneConnectionReason: String, Sendable, CaseIterable, Codable {
    /// The bridge reported `connected` or `disconnected` on `headphone/connection`
    /// (a disconnect that does not directly follow motion from a bud).
    case event
    /// The bridge reported `disconnected` while motion from a bud was streaming: with
    /// automatic ear detection, the buds were taken out.
    case earRemoved
    /// No motion for longer than ``HeadphoneConfiguration/streamTimeout`` (gateway clock).
    case streamTimeout
    /// The device bridge went offline (`status` offline, e.g. its MQTT will).
    case deviceOffline
    /// Motion arrived for ``HeadphoneConfiguration/resumeSpan`` while disconnected, or before
    /// any connection was known (project addition to the contract's reasons).
    case streamResumed

    /// How definitive the reason is, for a disconnected state learning a better reason: an
    /// inference (timeout) < the bridge's own report (event, earRemoved) < the bridge gone.
    var rank: Int {
        switch self {
        case .streamTimeout, .streamResumed: 1
        case .event, .earRemoved: 2
        case .deviceOffline: 3
        }
    }
}

/// One published change of a device's headphone connection.
public struct HeadphoneConnectionTransition: Sendable, Equatable, Codable {
    /// The new state.
    public var state: HeadphoneConnectionState
    /// Why.
    public var reason: HeadphoneConnectionReason
    /// Per device, strictly increasing: `max(previous + 1, gateway clock in ms)` at the
    /// transition, so it also increases across gateway restarts while the clock does.
    public var version: UInt64
    /// Wall clock of the input, Unix epoch seconds: the event's or status's `date` (arrival time
    /// for a status without one), `lastActivity + streamTimeout` for a timeout, the arrival
    /// time of the sample that completed a resumption.
    public var date: Double
    /// The sample timestamp (s since boot) a motion-based transition derives from: the last
    /// sample before a timeout, the sample that completed a resumption; nil otherwise.
    public var timestamp: Double?
    /// What identifies the input, for the event id (never the version, which depends on the
    /// gateway's history).
    public var inputKey: String

    /// Creates a transition.
    public init(
        state: HeadphoneConnectionState, reason: HeadphoneConnectionReason, version: UInt64, date: Double, timestamp: Double? = nil,
        inputKey: String
    ) {
        self.state = state
        self.reason = reason
        self.version = version
        self.date = date
        self.timestamp = timestamp
        self.inputKey = inputKey
    }
}
