import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore
/// The gateway's version: one source for `gateway/status`, `--version` and the logs.
public enum GatewayVersion {
    /// The version string.
    public static let current = "0.2.0"
}
