/// Whether a device's bridge is connected (`status` stream; the bridge's MQTT will says
/// offline).
public struct DeviceStatus: Sendable, Equatable, Hashable {
    /// Presence of the device bridge.
    public enum State: String, WireEnumeration {
        /// The bridge is connected and publishing.
        case online
        /// The bridge has gone (its will, or a clean shutdown).
        case offline

        /// `"online"` or `"offline"`.
        public var name: String { rawValue }
    }

    /// Presence of the device bridge.
    public var state: State
    /// When the state was set, Unix epoch seconds; `nil` when unknown (an MQTT will has no
    /// date).
    public var date: Double?

    /// Creates a status.
    /// - Parameters:
    ///   - state: online or offline.
    ///   - date: Unix epoch seconds, if known.
    public init(state: State, date: Double? = nil) {
        self.state = state
        self.date = date
    }
}
