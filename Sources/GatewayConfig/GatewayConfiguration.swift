import Logging
import TelemetryCore

/// Everything the gateway can be configured with. Every value has a production default, given
/// here and in the nested types (``MQTT``, ``Pipeline``, …) and nowhere else; `config/gateway.yml`,
/// `WG_*` environment variables and command-line flags override them through the keys each type
/// declares next to itself (see ``GatewayConfiguration/keys`` and `docs/configuration.md`).
public struct GatewayConfiguration: Sendable {
    /// The device registry file (operator's list of devices and entitlements); nil accepts
    /// every device with every entitlement (development only).
    public var registryFile: String? = "config/devices.yml"
    /// The capability table: which models and OS versions support which Core Motion features.
    public var capabilitiesFile = "config/capabilities.yml"

    /// The files the access policy is loaded (and reloaded on SIGHUP) from.
    public var accessPolicyFiles: AccessPolicyFiles {
        AccessPolicyFiles(registry: registryFile, capabilities: capabilitiesFile)
    }
    /// Broker connections.
    public var mqtt = MQTT()
    /// Topic roots.
    public var topics = Topics()
    /// Frame processing.
    public var pipeline = Pipeline()
    /// Metrics.
    public var metrics = Metrics()
    /// The inbound journal (keys under `journal.*`).
    public var journal = Journal()
    /// Retained state re-announcing (keys under `retained.*`).
    public var retained = Retained()
    /// Device snapshots and eviction (keys under `state.*`).
    public var state = DeviceState()
    /// Log level.
    public var logLevel: Logger.Level = .info
    /// The historical accelerometer store and tremor results (keys under `recorder.*`).
    public var recorder = Recorder()
    /// Settings of the derivations (keys under `derivation.*`).
    public var derivation = DerivationConfiguration()
    /// The HTTP server (keys under `http.*`).
    public var http = HTTP()
    /// Dead letters (keys under `deadLetter.*`).
    public var deadLetters = DeadLetters()
    /// Log line format (`logging.format`).
    public var logFormat = LogFormat.text
    /// Scale-out: several instances on one fleet (keys under `cluster.*`).
    public var cluster = Cluster()
    /// The backend of the recorder and the device snapshots (keys under `store.*`).
    public var store = Store()
    /// The event history: derived events kept in the store (keys under `history.*`).
    public var history = History()
    /// OpenTelemetry export of frame spans (keys under `tracing.*`; off by default).
    public var tracing = Tracing()

    /// Creates the defaults.
    public init() {}
}
