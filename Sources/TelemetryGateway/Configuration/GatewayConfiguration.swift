import Logging
import MQTTTransport
import TelemetryCore

/// Everything the gateway can be configured with. Every value has a production default;
/// `config/gateway.yml`, `WG_*` environment variables and command-line flags override them
/// (see ``GatewayConfiguration/keys`` and `docs/configuration.md`).
public struct GatewayConfiguration: Sendable {
    /// The broker connections.
    public struct MQTT: Sendable {
        /// Broker URL, `mqtt://HOST:PORT` or `mqtts://HOST:PORT`.
        public var broker = BrokerURL(host: "127.0.0.1", port: 1883)
        /// Client id prefix: the subscriber is `<clientId>-in`, the publisher `<clientId>-out`.
        public var clientID = "wearable-gateway"
        /// User name for the broker, if it requires one.
        public var username: String?
        /// Password for the broker. Never logged.
        public var password: String?
        /// File holding the password (first line); used when `password` is not set.
        public var passwordFile: String?
        /// Keepalive in seconds.
        public var keepalive = 30
        /// Seconds the broker keeps the subscriber's session (and queues its QoS 1 messages)
        /// while the gateway is away; 0 starts clean every time.
        public var sessionExpiry: UInt32 = 3600
        /// MQTT 5 receive maximum of the subscriber connection.
        public var receiveMaximum = 256
        /// Bound on outstanding publishes of the publisher connection.
        public var maximumInflightPublishes = 1024
        /// Seconds to wait for CONNACK before retrying.
        public var connectTimeout = 10.0
        /// First reconnect delay in seconds.
        public var reconnectInitialDelay = 0.25
        /// Longest reconnect delay in seconds.
        public var reconnectMaximumDelay = 5.0
        /// TLS CA file; setting it (or using `mqtts://`) enables TLS.
        public var tlsCAFile: String?
        /// TLS client certificate for mutual TLS.
        public var tlsCertificateFile: String?
        /// TLS client key for mutual TLS.
        public var tlsKeyFile: String?
        /// Verify that the broker certificate names the host.
        public var tlsVerifyHostname = true

        /// Creates the defaults.
        public init() {}
    }

    /// Topic roots.
    public struct Topics: Sendable {
        /// Root devices publish under: `<inboundRoot>/{id}/<stream>`.
        public var inboundRoot = TopicScheme.defaultInboundRoot
        /// Root the gateway publishes under: `<outboundRoot>/...`.
        public var outboundRoot = TopicScheme.defaultOutboundRoot

        /// Creates the defaults.
        public init() {}
    }

    /// Processing of inbound frames.
    public struct Pipeline: Sendable {
        /// Worker tasks devices are sharded over; 0 means one per CPU core.
        public var workers = 0
        /// Frames a worker's queue holds before the subscriber blocks.
        public var queueCapacity = 8192
        /// Longest the subscriber blocks on a full queue before admitting over capacity.
        public var maximumHandoffWait = 5.0
        /// Largest payload accepted, in bytes.
        public var maximumPayloadBytes = 1_048_576
        /// Error events are aggregated per (device, code, stream) over this many seconds.
        public var errorReportInterval = 10.0
        /// Longest a graceful shutdown waits for queued frames, in seconds; the whole shutdown
        /// (acknowledgements included) ends within twice this.
        public var drainTimeout = 15.0
        /// Bytes all worker queues may hold together before the subscriber blocks.
        public var maximumBufferedBytes = 134_217_728

        /// Creates the defaults.
        public init() {}
    }

    /// Metrics.
    public struct Metrics: Sendable {
        /// Seconds between retained `gateway/metrics` publications; 0 disables them.
        public var publishInterval = 5.0

        /// Creates the defaults.
        public init() {}
    }

    /// The historical accelerometer store (`recorder/accelerometer`), its queries and the
    /// tremor results (docs/recorder.md).
    public struct Recorder: Sendable {
        /// The SQLite file; nil stores nothing (queries are answered with `storeUnavailable`).
        public var database: String? = "data/recorder.sqlite"
        /// Seconds of recorded data kept (36 h, the window watchOS 3 gives apps).
        public var retention = 129_600.0
        /// The most samples stored over all devices (bounds the disk use, ~95 bytes per sample).
        public var maximumSamples = 20_000_000
        /// Seconds between pruning passes.
        public var pruneInterval = 60.0
        /// Samples per response chunk of a query.
        public var queryChunkSamples = 1000
        /// The longest range a query may cover, seconds; nil: the whole retention window
        /// (watchOS 3's 36 h query duration, and everything the store keeps).
        public var maximumQueryRange: Double?
        /// The query range limit in force: ``maximumQueryRange`` or, without one, ``retention``.
        public var effectiveQueryRange: Double { maximumQueryRange ?? retention }
        /// Queries queued or running at once over all requesters; more are refused with `busy`.
        public var queryQueueCapacity = 64
        /// Queries one requester may have queued or running at once; more are refused with
        /// `tooManyQueries`.
        public var maximumQueriesPerRequester = 4
        /// The largest query payload accepted, bytes; larger ones are refused with `payloadTooLarge`.
        public var maximumQueryPayloadBytes = 4096
        /// Answer messages on the publisher connection not yet acknowledged, at most: the rest of
        /// `mqtt.maxInflightPublishes` stays for device events.
        public var maximumAnswerPublishesInFlight = 32
        /// Seconds past a minute's end the recorded data must reach before its tremor result is published.
        public var tremorGrace = 5.0
        /// Seconds without recorder chunks after which a device's last complete minute is published.
        public var tremorIdleTimeout = 30.0

        /// Creates the defaults.
        public init() {}
    }

    /// The inbound journal: every received frame is kept there until its outputs are
    /// acknowledged, so a crash loses nothing the broker handed over (docs/reliability.md).
    public struct Journal: Sendable {
        /// The ring file; nil turns the journal off (frames in flight die with the process).
        public var path: String? = "data/journal.bin"
        /// Size of the ring in bytes (fixed for a file: change it only with an empty journal).
        public var sizeBytes = 268_435_456
        /// Seconds between writes of the journal's dirty pages to disk (the power-loss window).
        public var flushInterval = 1.0
        /// Longest the subscriber waits for room in a full journal before handing frames on
        /// unjournaled (counted); 0 never waits.
        public var maximumWait = 5.0

        /// Creates the defaults.
        public init() {}
    }

    /// Retained device state kept for re-announcing after the broker lost it.
    public struct Retained: Sendable {
        /// Bytes of retained messages remembered (oldest dropped first, counted).
        public var cacheBytes = 67_108_864
        /// Retained messages re-published per second after a broker restart.
        public var reannounceRate = 2000.0

        /// Creates the defaults.
        public init() {}
    }

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

    /// Creates the defaults.
    public init() {}
}
