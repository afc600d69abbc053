import Logging
import MQTTTransport

/// What the runtime needs of its publishing connection (the one that carries the will and
/// every outbound message). ``MQTTClient`` is one; tests use one without a broker.
public protocol OutboundConnection: Sendable {
    /// Connects, and keeps reconnecting until ``shutdown()``.
    func start()
    /// Publishes and waits for the broker's acknowledgement.
    func publish(_ message: MQTTMessage) async throws
    /// Hands a message over once an in-flight slot is free, without waiting for its acknowledgement.
    func send(_ message: MQTTMessage) async throws
    /// Like ``send(_:)``, and tells `onComplete` how the publish ended.
    func send(_ message: MQTTMessage, onComplete: @escaping MQTTClient.CompletionHandler) async throws
    /// Waits until no publish is outstanding; false after `timeout` seconds.
    func flush(timeout: Double) async -> Bool
    /// Disconnects normally and fails whatever is still outstanding.
    func shutdown() async
    /// The connection's counters.
    var statistics: MQTTClientStatistics { get }
}

/// What the runtime needs of its subscribe-only connection. ``MQTTClient`` is one.
public protocol InboundConnection: Sendable {
    /// Connects, and keeps reconnecting until ``shutdown()``.
    func start()
    /// Waits until connected; throws after `timeout` seconds or when shut down first.
    func waitUntilConnected(timeout: Double) async throws
    /// Subscribes (with MQTT 5 subscription options) and waits for the broker's answer.
    func subscribe(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions) async throws
    /// Asks for filters without waiting (any thread); each SUBACK comes as a `subscribed` event.
    func request(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions)
    /// Drops filters (UNSUBSCRIBE when connected; not re-sent after a reconnect).
    func unsubscribe(_ filters: [String])
    /// Stops receiving and disconnects.
    func shutdown() async
    /// Connects again after its hold kept it from reconnecting (``MQTTClientEvent/reconnectHeld``).
    func resumeReconnecting()
    /// Counters so far (for metrics).
    var statistics: MQTTClientStatistics { get }
}

extension MQTTClient: OutboundConnection, InboundConnection {}

/// Makes the gateway's two broker connections. ``mosquitto`` connects through libmosquitto;
/// tests pass connections without a broker to run the whole runtime, shutdown included.
public struct BrokerConnections: Sendable {
    /// Makes the publishing connection; `onEvent` gets its connection events.
    public var makePublisher:
        @Sendable (_ configuration: MQTTClientConfiguration, _ logger: Logger, _ onEvent: @escaping MQTTClient.EventHandler) throws -> any OutboundConnection
    /// Makes the subscribe-only connection; `onMessage` gets each received message on the
    /// connection's thread (and may block it: backpressure).
    public var makeSubscriber:
        @Sendable (
            _ configuration: MQTTClientConfiguration, _ logger: Logger, _ onMessage: @escaping MQTTClient.MessageHandler,
            _ onEvent: @escaping MQTTClient.EventHandler
        ) throws -> any InboundConnection

    /// Connections made of the two functions.
    public init(
        makePublisher: @escaping @Sendable (MQTTClientConfiguration, Logger, @escaping MQTTClient.EventHandler) throws -> any OutboundConnection,
        makeSubscriber: @escaping @Sendable (MQTTClientConfiguration, Logger, @escaping MQTTClient.MessageHandler, @escaping MQTTClient.EventHandler) throws ->
            any InboundConnection
    ) {
        self.makePublisher = makePublisher
        self.makeSubscriber = makeSubscriber
    }

    /// Real connections through libmosquitto.
    public static let mosquitto = BrokerConnections(
        makePublisher: { configuration, logger, onEvent in try MQTTClient(configuration: configuration, logger: logger, onEvent: onEvent) },
        makeSubscriber: { configuration, logger, onMessage, onEvent in
            try MQTTClient(configuration: configuration, logger: logger, onMessage: onMessage, onEvent: onEvent)
        })
}
