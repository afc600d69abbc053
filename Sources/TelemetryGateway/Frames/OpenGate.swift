import MQTTTransport

/// The gate of a single gateway: every frame is this instance's, journaled and published;
/// nothing is held, nothing is a duplicate.
struct OpenGate: FrameGate {
    func admit(topic: String, payload: [UInt8], identifiers: [Int], routingKey: Substring) -> Admission { .take(.current) }
    func replay(routingKey: Substring, upload: Bool) -> ReplayDecision { .apply }
    func hold(_ frame: RoutedFrame, device: Substring) -> Bool { false }
    func connectionEvent(_ event: MQTTClientEvent) -> [RoutedFrame] { [] }
}
