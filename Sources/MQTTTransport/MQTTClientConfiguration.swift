/// Everything needed to open and keep one MQTT 5 connection.
public struct MQTTClientConfiguration: Sendable {
    /// TLS settings (used when the broker URL is `mqtts://` or `tls` is set).
    public struct TLS: Sendable, Equatable {
        /// PEM file of the certificate authorities to trust.
        public var caFile: String?
        /// Directory of trusted CA certificates (hashed names, as `/etc/ssl/certs`); used when
        /// no `caFile` is given.
        public var caPath: String?
        /// Client certificate (PEM) for mutual TLS, with `keyFile`.
        public var certificateFile: String?
        /// Client private key (PEM), with `certificateFile`.
        public var keyFile: String?
        /// Check that the broker's certificate names the host we connect to. Only switch this off
        /// for testing: without it anyone holding a certificate of the CA can impersonate the broker.
        public var verifyHostname: Bool

        /// Creates TLS settings.
        public init(
            caFile: String? = nil, caPath: String? = nil, certificateFile: String? = nil, keyFile: String? = nil,
            verifyHostname: Bool = true
        ) {
            self.caFile = caFile
            self.caPath = caFile == nil ? (caPath ?? "/etc/ssl/certs") : caPath
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.verifyHostname = verifyHostname
        }
    }

    /// Capped exponential backoff between connection attempts.
    public struct Reconnect: Sendable, Equatable {
        /// Delay before the first retry, in seconds.
        public var initialDelay: Double
        /// Upper bound of the delay, in seconds.
        public var maximumDelay: Double

        /// Creates a backoff policy.
        public init(initialDelay: Double = 0.25, maximumDelay: Double = 5) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
        }

        /// The ceiling of the delay after `attempt` consecutive failures (0-based): doubles each
        /// time, capped at ``maximumDelay``.
        public func delay(afterFailures attempt: Int) -> Double {
            let exponent = Double(min(attempt, 30))
            return min(maximumDelay, initialDelay * Double(sign: .plus, exponent: Int(exponent), significand: 1))
        }

        /// The delay to wait after `attempt` consecutive failures: "full jitter", uniform between
        /// half the initial delay and the ceiling, so that many clients cut off at once (a broker
        /// restart) do not come back in lock step.
        public func jitteredDelay(afterFailures attempt: Int, using generator: inout some RandomNumberGenerator) -> Double {
            let ceiling = delay(afterFailures: attempt)
            let floor = min(ceiling, initialDelay / 2)
            return floor < ceiling ? Double.random(in: floor...ceiling, using: &generator) : ceiling
        }

        /// The delay after the broker ended our session because another client connected with
        /// our client id: the longest delay (with jitter), never the quick first retry, so two
        /// clients configured with one id do not knock each other off every fraction of a second.
        public func takeoverDelay(using generator: inout some RandomNumberGenerator) -> Double {
            Double.random(in: (maximumDelay / 2)...maximumDelay, using: &generator)
        }
    }

    /// The broker to connect to.
    public var broker: BrokerURL
    /// Client identifier; must be stable for a persistent session.
    public var clientID: String
    /// User name, if the broker requires authentication.
    public var username: String?
    /// Password, if the broker requires authentication.
    public var password: String?
    /// Keepalive in seconds: the broker drops the connection after 1.5× this without traffic.
    public var keepalive: Int
    /// MQTT 5 clean start: false resumes the previous session (needs `sessionExpiry` > 0).
    public var cleanStart: Bool
    /// Seconds the broker keeps the session after a disconnect (0: ends with the connection).
    public var sessionExpiry: UInt32
    /// Whether a graceful stop ends the session (its DISCONNECT sets the session expiry to 0):
    /// the session then outlives only a lost connection, never a deliberate stop. Set it after `init`.
    public var endsSessionAtStop = false
    /// Asked (on the network thread) when a connection or attempt ends: true holds the next
    /// attempt until ``MQTTClient/resumeReconnecting()`` (a ``MQTTClientEvent/reconnectHeld``
    /// event says so). A clustered gateway's subscriber holds once it is adopted: its session
    /// is its stand-in's. Nil: always reconnect after the backoff.
    public var holdsReconnect: (@Sendable () -> Bool)?
    /// The same question when the connection ended because another connection with our client
    /// id took the session over (DISCONNECT reason 0x8E); true holds as ``holdsReconnect`` does.
    /// A clustered gateway's subscriber also holds then while its lease is past its deadline:
    /// the taker may be the stand-in of an adoption it cannot learn of while the store is away.
    /// Nil: only ``holdsReconnect`` is asked.
    public var holdsReconnectAfterTakeover: (@Sendable () -> Bool)?
    /// Asked on the network thread after each group of received messages, before their
    /// acknowledgements are written (``AcknowledgementGate``): a clustered gateway acknowledges a
    /// frame only once its outputs are published. Nil: acknowledged at once, as libmosquitto does.
    public var acknowledgementGate: (any AcknowledgementGate)?
    /// MQTT 5 receive maximum: how many unacknowledged QoS 1/2 messages the broker may send us.
    /// After a connection that libmosquitto ended with a protocol error (as when a resumed
    /// session holds more QoS 2 messages in flight than this), the client announces 65,535
    /// until a connection ends for another reason.
    public var receiveMaximum: Int
    /// Bound on this client's outstanding publishes; callers wait for a free slot beyond it.
    /// libmosquitto's own outgoing queue is unbounded, so this is what bounds memory.
    public var maximumInflightPublishes: Int
    /// The will the broker publishes if the connection ends without a normal DISCONNECT.
    public var will: MQTTMessage?
    /// TLS settings; `mqtts://` without them trusts the system CAs in `/etc/ssl/certs`.
    public var tls: TLS?
    /// Backoff between connection attempts.
    public var reconnect: Reconnect
    /// Seconds an attempt may take, TCP connect included, to get its CONNACK before it is given
    /// up and retried (a blocking connect to an address that drops SYNs is interrupted).
    public var connectTimeout: Double
    /// MQTT 5 "retain as published" on every subscription: received messages keep the retain
    /// flag their publisher set, instead of it marking only deliveries from the broker's
    /// retained store. Session capture needs it; set it after `init`.
    public var retainAsPublished = false
    /// Seconds the network thread lets inbound messages gather in the socket once it has read
    /// everything that had arrived (0: it waits for the next message at once). While messages
    /// flow, it then wakes about once per interval and reads them all, instead of once per
    /// message; a message that arrives after a quiet interval is read at once. Each message
    /// waits at most this long more, and so does its acknowledgement. For a subscribe-only
    /// connection; whole milliseconds, rounded up; set it after `init`.
    public var receiveCoalescing: Double = 0
    /// The network thread's name as `top -H`, `ps -L` and `perf` show it (Linux keeps 15
    /// bytes); nil: `mqtt:` and the end of the client id. Set it after `init`.
    public var threadName: String?

    /// Creates a configuration with production defaults.
    public init(
        broker: BrokerURL,
        clientID: String,
        username: String? = nil,
        password: String? = nil,
        keepalive: Int = 30,
        cleanStart: Bool = true,
        sessionExpiry: UInt32 = 0,
        receiveMaximum: Int = 256,
        maximumInflightPublishes: Int = 1024,
        will: MQTTMessage? = nil,
        tls: TLS? = nil,
        reconnect: Reconnect = Reconnect(),
        connectTimeout: Double = 10
    ) {
        self.broker = broker
        self.clientID = clientID
        self.username = username
        self.password = password
        self.keepalive = keepalive
        self.cleanStart = cleanStart
        self.sessionExpiry = sessionExpiry
        self.receiveMaximum = receiveMaximum
        self.maximumInflightPublishes = maximumInflightPublishes
        self.will = will
        self.tls = tls
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
    }
}
