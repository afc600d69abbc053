@testable import TelemetryCore

extension InboundFrame {
    /// A frame with a UTF-8 text payload, received at `at` (default 1,000 s).
    static func json(_ topic: String, _ payload: String, contentType: String? = nil, at receivedAt: Double = 1_000) -> InboundFrame {
        InboundFrame(topic: topic, payload: Array(payload.utf8), contentType: contentType, retained: false, receivedAt: receivedAt)
    }
}
