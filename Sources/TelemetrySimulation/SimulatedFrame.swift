import TelemetryCore

/// One MQTT message the simulator wants published.
public struct SimulatedFrame: Sendable, Equatable {
    /// The device id (the topic level after the root).
    public var deviceId: String
    /// The stream path below the id, for example `"batched/accelerometer"`.
    public var stream: String
    /// The payload: the contract's JSON (UTF-8), or the binary encoding after
    /// ``encoded(as:)`` turned a high-rate frame into protobuf.
    public var payload: [UInt8]
    /// How ``payload`` is encoded; publish with `encoding.mediaType` as the MQTT 5 content type.
    public var encoding: PayloadEncoding = .json
    /// Whether the broker should retain it (`hello` and `status`).
    public var retain: Bool
    /// MQTT QoS: 0 for the per-sample motion streams, 1 otherwise.
    public var qos: MQTTQoS
    /// When to publish it, in simulated seconds since the generator started.
    public var time: Double

    /// Creates a frame.
    public init(deviceId: String, stream: String, payload: [UInt8], retain: Bool, qos: MQTTQoS, time: Double) {
        self.deviceId = deviceId
        self.stream = stream
        self.payload = payload
        self.retain = retain
        self.qos = qos
        self.time = time
    }

    /// The inbound topic `<inboundRoot>/<deviceId>/<stream>` of `scheme`; the id and stream are
    /// used as they are (a simulator may send what the gateway must reject).
    /// - Parameter scheme: the topic layout (contract default roots).
    public func topic(in scheme: TopicScheme = TopicScheme()) -> String {
        scheme.inboundTopic(rawDevice: deviceId, path: stream)
    }

    /// The inbound topic `<root>/<deviceId>/<stream>`.
    /// - Parameter root: the inbound topic root.
    public func topic(root: String) -> String { topic(in: TopicScheme(inboundRoot: root)) }
}
