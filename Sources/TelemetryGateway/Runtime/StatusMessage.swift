import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import ServiceLifecycle
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

    func message(online: Bool, reason: String?) -> MQTTMessage {
        var writer = JSONWriter()
        writer.object {
            $0.field("state", online ? "online" : "offline")
            $0.field("version", Self.version)
            $0.field("startedAt", startedAt)
            $0.field("date", online || reason == "shutdown" ? Date().timeIntervalSince1970 : startedAt)
            $0.field("reason", reason)
            $0.field("instance", instance)
        }
        return MQTTMessage(.status, in: scheme, payload: writer.bytes, properties: MQTTProperties(contentType: "application/json"))
    }
}
