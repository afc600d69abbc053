import Foundation
import MQTTTransport
import WearableGatewayTesting

/// Records client events and lets a test wait for a condition on them.
public final class EventRecorder: @unchecked Sendable {
    private let condition = NSCondition()
    private var storage: [MQTTClientEvent] = []

    public init() {}

    public var handler: MQTTClient.EventHandler {
        { [self] event in
            condition.lock()
            storage.append(event)
            condition.broadcast()
            condition.unlock()
        }
    }

    public var events: [MQTTClientEvent] {
        condition.lock()
        defer { condition.unlock() }
        return storage
    }

    public func wait(timeout: Double = 20, _ what: String, until predicate: @escaping @Sendable ([MQTTClientEvent]) -> Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                condition.lock()
                defer { condition.unlock() }
                while !predicate(storage) {
                    if !condition.wait(until: deadline), !predicate(storage) {
                        continuation.resume(throwing: TestFailure("timed out waiting for \(what); events: \(storage)"))
                        return
                    }
                }
                continuation.resume()
            }.start()
        }
    }
}
