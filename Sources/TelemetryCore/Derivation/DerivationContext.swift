/// What a derivation knows about the frame it receives, besides the frame itself.
public struct DerivationContext: Sendable, Equatable {
    /// The device that sent the frame.
    public var device: DeviceID
    /// When the gateway received the frame, Unix epoch seconds (the gateway clock, passed in).
    public var receivedAt: Double
    /// Whether the broker delivered the frame from its retained store.
    public var retained: Bool
    /// The device's maximum submersion depth in metres from its entitlements (6 shallow, 40
    /// full), if it has one.
    public var maximumDepth: Double?
    /// The device's latest `hello`, if known (model, wrist location for tennis, …).
    public var descriptor: DeviceDescriptor?
    /// The topic layout, for building outbound topics.
    public var scheme: TopicScheme

    /// Creates a context.
    public init(
        device: DeviceID, receivedAt: Double, retained: Bool = false, maximumDepth: Double? = nil, descriptor: DeviceDescriptor? = nil,
        scheme: TopicScheme = TopicScheme()
    ) {
        self.device = device
        self.receivedAt = receivedAt
        self.retained = retained
        self.maximumDepth = maximumDepth
        self.descriptor = descriptor
        self.scheme = scheme
    }
}
