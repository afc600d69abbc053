import Foundation
import MQTTTransport

/// Collects received messages and lets a test wait for a condition on them, woken by each
/// arrival (no polling sleeps), with an overall deadline so a broken build fails instead of
/// hanging.
public final class MessageCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var storage: [MQTTMessage] = []

    public init() {}

    /// The handler to give to an ``MQTTClient``.
    public var handler: MQTTClient.MessageHandler {
        { [self] message in
            condition.lock()
            storage.append(message)
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Everything received so far.
    public var messages: [MQTTMessage] {
        condition.lock()
        defer { condition.unlock() }
        return storage
    }

    /// Messages on one topic.
    public func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    /// Blocks (off the cooperative pool) until `predicate` holds for the received messages.
    /// - Returns: the messages at that point.
    @discardableResult
    public func wait(
        timeout: Double = 20, _ what: String, until predicate: @escaping @Sendable ([MQTTMessage]) -> Bool
    ) async throws -> [MQTTMessage] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[MQTTMessage], any Error>) in
            Thread { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                condition.lock()
                defer { condition.unlock() }
                while !predicate(storage) {
                    if !condition.wait(until: deadline) {
                        if predicate(storage) { break }
                        let topics = Dictionary(grouping: storage, by: \.topic).mapValues(\.count)
                        continuation.resume(throwing: TestFailure("timed out after \(timeout) s waiting for \(what); received per topic: \(topics)"))
                        return
                    }
                }
                continuation.resume(returning: storage)
            }.start()
        }
    }
}
