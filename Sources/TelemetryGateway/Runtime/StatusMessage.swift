import MQTTTransport
import TelemetryCore

/// The retained `gateway/status` message: online while the gateway runs, offline after a
/// graceful shutdown (reason `shutdown`) or through the will (reason `connectionLost`).
struct StatusMessage: Sendable {
    /// The gateway's version, published in `gateway/status`.
    static let version = ProductVersion.current

    let scheme: TopicScheme
    let startedAt: Double
    /// The instance that wrote it (clustered modes); nil for a single gateway.
    var instance: String? = nil

    /// Where it is published.
    var topic: String { scheme.statusTopic }

    /// The message; `date` (seconds since 1970) is when it was said, for online and a graceful offline.
    func message(online: Bool, reason: String?, date: Double? = nil) -> MQTTMessage {
        var writer = JSONWriter()
        writer.object {
            $0.field("state", online ? "online" : "offline")
            $0.field("version", Self.version)
            $0.field("startedAt", startedAt)
            $0.field("date", online || reason == "shutdown" ? (date ?? startedAt) : startedAt)
            $0.field("reason", reason)
            $0.field("instance", instance)
        }
        return MQTTMessage(.status, in: scheme, payload: writer.bytes, properties: MQTTProperties(contentType: "application/json"))
    }
}
