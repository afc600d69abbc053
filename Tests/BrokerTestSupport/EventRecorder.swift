import MQTTTransport
import WearableGatewayTesting

/// Records client events and lets a test wait for a condition on them.
public final class EventRecorder: Sendable {
    private let storage = WatchedState<[MQTTClientEvent]>([])

    public init() {}

    public var handler: MQTTClient.EventHandler {
        { [storage] event in storage.update { $0.append(event) } }
    }

    public var events: [MQTTClientEvent] { storage.value }

    public func wait(timeout: Double = 20, _ what: String, until predicate: @escaping @Sendable ([MQTTClientEvent]) -> Bool) async throws {
        guard await storage.wait(timeout: timeout, until: predicate) else {
            throw TestFailure("timed out waiting for \(what); events: \(events)")
        }
    }
}
