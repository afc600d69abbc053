import BrokerTestSupport
import Foundation
import MQTTTransport

/// A device whose `status` alternates online/offline with a distinct date per frame: every
/// frame the gateway processes yields one `gateway/{id}/connection` message carrying that date,
/// so the set of dates an observer collects is exactly the set of frames processed.
struct PresenceStream {
    let device: String
    let count: Int
    /// The date of frame `index` is `baseDate + index`.
    let baseDate = 1_800_000_000

    /// Publishes every frame at `qos` (QoS 1 unless told) as fast as the in-flight window allows
    /// and waits until the broker acknowledged all of them (the client reconnects and re-sends
    /// across faults).
    func publish(with client: MQTTClient, qos: MQTTQoS = .atLeastOnce, timeout: Double = 120) async throws {
        for index in 0..<count {
            let state = index % 2 == 0 ? "online" : "offline"
            try await client.send(
                MQTTMessage(topic: "wearables/\(device)/status", string: #"{"state":"\#(state)","date":\#(baseDate + index)}"#, qos: qos))
        }
        guard await client.flush(timeout: timeout) else { throw TestFailure("the broker did not acknowledge all \(count) frames within \(timeout) s") }
    }
}

/// Counts the distinct frames seen through `gateway/{id}/connection` messages of one device.
final class PresenceCounter: Sendable {
    private let stream: PresenceStream
    /// Distinct frame indices seen, and messages received (duplicates included).
    private let state = WatchedState<(seen: Set<Int>, messages: Int)>(([], 0))

    init(_ stream: PresenceStream) {
        self.stream = stream
    }

    /// The handler for an observer subscribed to `gateway/{id}/connection`.
    var handler: MQTTClient.MessageHandler {
        let topic = "gateway/\(stream.device)/connection"
        let baseDate = stream.baseDate
        return { [state] message in
            guard message.topic == topic,
                let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                let date = object["date"] as? Double
            else { return }
            state.update {
                $0.seen.insert(Int(date) - baseDate)
                $0.messages += 1
            }
        }
    }

    /// A client of `broker` counting into this counter, subscribed to the stream's
    /// `gateway/{id}/connection` at QoS 1.
    func observe(_ broker: TestBroker) async throws -> MQTTClient {
        let observer = try await TestClients.subscribed(broker, to: ["gateway/\(stream.device)/connection"], onMessage: handler)
        return observer
    }

    /// Distinct frames seen, and messages received (duplicates included).
    var counts: (distinct: Int, messages: Int) {
        let value = state.value
        return (value.seen.count, value.messages)
    }

    /// Frame indices never seen.
    var missing: [Int] {
        let seen = state.value.seen
        return (0..<stream.count).filter { !seen.contains($0) }
    }

    /// Waits until the frame with this index was seen; throws after `timeout`.
    func wait(forFrame index: Int, timeout: Double) async throws {
        try await wait(timeout: timeout, "frame \(index)") { $0.contains(index) }
    }

    /// Waits (off the cooperative pool) until `distinct` frames were seen; throws after `timeout`.
    func wait(forDistinct distinct: Int, timeout: Double) async throws {
        try await wait(timeout: timeout, "\(distinct) frames") { $0.count >= distinct }
    }

    private func wait(timeout: Double, _ what: String, until predicate: @escaping @Sendable (Set<Int>) -> Bool) async throws {
        guard await state.wait(timeout: timeout, until: { predicate($0.seen) }) else {
            let missing = missing
            throw TestFailure(
                "waited \(timeout) s for \(what) in vain: saw \(counts.distinct) of \(stream.count) frames; \(missing.count) missing, first: \(missing.prefix(10))")
        }
    }
}
