internal import CMosquitto
import Logging

/// One MQTT 5 connection through libmosquitto, with an async API.
///
/// - A dedicated thread runs the network loop (libmosquitto's external-loop calls, waiting with
///   `poll()`, so descriptors numbered 1024 and more work) and does its own
///   reconnecting with capped exponential backoff, so that errors libmosquitto treats as fatal
///   (TLS failures, CONNACK refusals, protocol errors) are retried and reported instead of
///   silently ending the loop, as `mosquitto_loop_start` would.
/// - Subscriptions are remembered and re-sent whenever the broker reports that it kept no
///   session for us, so a broker restart never leaves the client connected but deaf.
/// - Publishes are bounded by ``MQTTClientConfiguration/maximumInflightPublishes``: callers
///   wait (asynchronously) for a slot, since libmosquitto's own queue is unbounded.
/// - Received messages go to the `onMessage` handler **on the network thread**. The handler
///   must copy what it needs and return quickly; it may block briefly to apply backpressure,
///   which stalls only this connection. Never block it on a client that also publishes.
public final class MQTTClient: Sendable {
    /// Handler for received messages, called on the network thread.
    public typealias MessageHandler = @Sendable (MQTTMessage) -> Void
    /// Handler for connection events, called on the network thread; must not block.
    public typealias EventHandler = @Sendable (MQTTClientEvent) -> Void
    /// Handler told how one sent message ended; called on the network thread (or the caller's
    /// thread at shutdown); must not block.
    public typealias CompletionHandler = @Sendable (PublishOutcome) -> Void

    private let core: ClientCore

    /// Creates a client. Nothing connects until ``start()``.
    /// - Throws: ``MQTTTransportError`` with code `.invalidConfiguration` or `.library` when
    ///   libmosquitto rejects the settings (e.g. an unreadable TLS file).
    public init(
        configuration: MQTTClientConfiguration,
        logger: Logger,
        onMessage: MessageHandler? = nil,
        onEvent: EventHandler? = nil
    ) throws(MQTTTransportError) {
        core = try ClientCore(configuration: configuration, logger: logger, onMessage: onMessage, onEvent: onEvent)
    }

    deinit {
        core.stopAndJoin()
    }

    /// The configuration the client was created with.
    public var configuration: MQTTClientConfiguration { core.configuration }

    /// Starts the network thread, which connects and keeps reconnecting until ``shutdown(timeout:)``.
    public func start() {
        core.start()
    }

    /// Waits until the client is connected.
    /// - Throws: `.timeout` after `timeout` seconds, `.shutdown` if the client stops first.
    public func waitUntilConnected(timeout: Double) async throws {
        try await core.waitUntilConnected(timeout: timeout)
    }

    /// Subscribes to topic filters and waits for the SUBACK. The filters are remembered and
    /// re-sent after any reconnect where the broker kept no session.
    /// - Throws: `.rejectedByBroker` if the broker refused a filter, `.notConnected` if there is
    ///   no connection now (the filters are still re-sent on the next connection).
    /// - Parameter options: the MQTT 5 subscription identifier and retain handling.
    public func subscribe(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions = .init()) async throws {
        try await core.subscribe(filters, qos: qos, options: options)
    }

    /// Asks for `filters` without waiting (any thread, the message handler's included): sent
    /// in batches now if connected, remembered and re-sent like ``subscribe(_:qos:)``'s; each
    /// SUBACK is reported as ``MQTTClientEvent/subscribed(filters:)``.
    public func request(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions = .init()) {
        core.request(filters, qos: qos, options: options)
    }

    /// Forgets `filters` and sends UNSUBSCRIBE for them if connected (any thread).
    public func unsubscribe(_ filters: [String]) {
        core.unsubscribe(filters)
    }

    /// Publishes and waits until the broker acknowledged it (PUBACK for QoS 1, PUBCOMP for
    /// QoS 2) or, for QoS 0, until it was written to the socket.
    /// - Throws: `.rejectedByBroker` (e.g. not authorized), `.connectionLost` (QoS 0 only),
    ///   `.shutdown`, `.library`.
    public func publish(_ message: MQTTMessage) async throws {
        try await core.publish(message, awaitAcknowledgement: true)
    }

    /// Hands a message to libmosquitto once an in-flight slot is free, without waiting for the
    /// acknowledgement. The outcome is counted in ``statistics``; ``flush(timeout:)`` waits for
    /// all of them.
    public func send(_ message: MQTTMessage) async throws {
        try await core.publish(message, awaitAcknowledgement: false)
    }

    /// Like ``send(_:)``, and tells `onComplete` how the publish ended once that is known, so a
    /// caller can release what it kept until the broker had the message (the gateway's
    /// journal). Not called when this throws (the message never reached libmosquitto).
    public func send(_ message: MQTTMessage, onComplete: @escaping CompletionHandler) async throws {
        try await core.publish(message, awaitAcknowledgement: false, onComplete: onComplete)
    }

    /// Waits until no publish is outstanding. Returns false if that took longer than `timeout`.
    public func flush(timeout: Double) async -> Bool {
        await core.flush(timeout: timeout)
    }

    /// Disconnects normally (so the broker discards the will), stops the network thread and
    /// fails whatever is still outstanding. Idempotent.
    public func shutdown() async {
        await core.shutdown()
    }

    /// Lets a client whose hold kept it from reconnecting (``MQTTClientEvent/reconnectHeld``)
    /// connect again. Without a hold in effect it does nothing.
    public func resumeReconnecting() {
        core.resumeReconnecting()
    }

    /// A snapshot of the client's counters.
    public var statistics: MQTTClientStatistics { core.statistics }

    /// The linked libmosquitto version, e.g. "2.0.11".
    public static var libraryVersion: String { MosquittoLibrary.version }
}
