/// Headphones connected or disconnected (`headphone/connection` stream), as
/// `CMHeadphoneMotionManagerDelegate`'s didConnect / didDisconnect.
public struct HeadphoneConnectionEvent: Sendable, Equatable, Hashable {
    /// Which delegate callback fired; written as the `"event"` field.
    public enum Kind: String, WireEnumeration {
        /// `headphoneMotionManagerDidConnect`: buds in ear / headphones on.
        case connected
        /// `headphoneMotionManagerDidDisconnect`: buds out / headphones off or gone.
        case disconnected

        /// `"connected"` or `"disconnected"`.
        public var name: String { rawValue }
    }

    /// Connected or disconnected.
    public var kind: Kind
    /// When it happened, Unix epoch seconds.
    public var date: Double

    /// Creates a headphone connection event.
    /// - Parameters:
    ///   - kind: connected or disconnected.
    ///   - date: Unix epoch seconds.
    public init(kind: Kind, date: Double) {
        self.kind = kind
        self.date = date
    }
}
