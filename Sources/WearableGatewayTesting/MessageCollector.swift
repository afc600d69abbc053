import MQTTTransport

/// Collects received messages and lets a test wait for a condition on them, woken by each
/// arrival (no polling sleeps), with an overall deadline so a broken build fails instead of
/// hanging.
public final class MessageCollector: Sendable {
    private let storage = WatchedState<[MQTTMessage]>([])

    public init() {}

    /// The handler to give to an ``MQTTClient``.
    public var handler: MQTTClient.MessageHandler {
        { [storage] message in storage.update { $0.append(message) } }
    }

    /// Everything received so far.
    public var messages: [MQTTMessage] { storage.value }

    /// Messages on one topic.
    public func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    /// Waits (off the cooperative pool) until `predicate` holds for the received messages.
    /// - Returns: the messages at that point.
    /// - Throws: ``TestFailure`` naming `what` and the messages received per topic, after
    ///   `timeout` seconds.
    @discardableResult
    public func wait(
        timeout: Double = 20, _ what: String, until predicate: @escaping @Sendable ([MQTTMessage]) -> Bool
    ) async throws -> [MQTTMessage] {
        if let messages = await storage.wait(timeout: timeout, until: { predicate($0) ? $0 : nil }) { return messages }
        let topics = Dictionary(grouping: messages, by: \.topic).mapValues(\.count)
        throw TestFailure("timed out after \(timeout) s waiting for \(what); received per topic: \(topics)")
    }
}
