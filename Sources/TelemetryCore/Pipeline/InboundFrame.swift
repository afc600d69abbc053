/// A message received from a device, as the transport hands it to the pipeline.
public struct InboundFrame: Sendable {
    /// The topic it was published on, e.g. `wearables/watch-1/status`.
    public var topic: String
    /// The payload bytes.
    public var payload: [UInt8]
    /// The MQTT 5 content type, or nil when the publisher sent none (JSON is assumed).
    public var contentType: String?
    /// Whether the broker delivered it as a retained message.
    public var retained: Bool
    /// When the gateway received it, in Unix epoch seconds from the gateway's clock (the core reads no clock).
    public var receivedAt: Double
    /// The frame's record in the gateway's inbound journal (its sequence number, which goes up
    /// in arrival order and continues across restarts); nil for a frame not journaled. A
    /// replayed frame at or below its device's applied sequence is not applied again, unless its
    /// effect lives only in sample windows (a batched stream's: no snapshot holds it).
    public var journalSequence: UInt64?
    /// The publisher's trace context, if it sent a valid one: carried onto every message the
    /// frame produces.
    public var traceParent: TraceParent?

    /// Creates a frame.
    /// - Parameters:
    ///   - topic: the topic it was published on.
    ///   - payload: the payload bytes.
    ///   - contentType: the MQTT 5 content type, if any.
    ///   - retained: whether it was delivered as a retained message.
    ///   - receivedAt: when the gateway received it, Unix epoch seconds.
    public init(topic: String, payload: [UInt8], contentType: String? = nil, retained: Bool = false, receivedAt: Double) {
        self.topic = topic
        self.payload = payload
        self.contentType = contentType
        self.retained = retained
        self.receivedAt = receivedAt
    }
}
