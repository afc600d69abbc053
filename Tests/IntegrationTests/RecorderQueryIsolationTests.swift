import BrokerTestSupport
import Foundation
import MQTTTransport
import Locking
import TelemetryCore
import Testing

@testable import TelemetryGateway

/// Recorder queries must not hold up device traffic: a burst of whole-window queries from one
/// app next to a device going online and offline, through a real mosquitto (docs/recorder.md,
/// *Load*; docs/reliability.md).
@Suite("Recorder queries isolated from device traffic through a real broker")
struct RecorderQueryIsolationTests {
    private static let recordingDevice = "watch-rec-burst"
    private static let presenceDevice = "watch-presence-burst"
    private static let hello = #"{"model":"Apple Watch Series 9","platform":"watchOS","osVersion":"10.1","app":"com.example.tremor","authorization":"authorized"}"#
    /// Hours of history, one chunk of `samplesPerHour` samples in each.
    private static let hours = 36
    private static let samplesPerHour = 250
    private static let queryCount = 300
    private static let presenceCount = 60

    /// A time bound (p95 ≤ 1 s): run alone with the other timed tests (`WG_TIMED_TESTS=1`, scripts/test.sh).
    @Test(
        "300 whole-window queries of one app at once: another device's presence within 1 s (p95), every query answered, refusals counted",
        .enabled(if: ProcessInfo.processInfo.environment["WG_TIMED_TESTS"] != nil))
    func queryBurst() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let now = Date().timeIntervalSince1970.rounded(.down)
        try await recordHistory(broker, run, now: now)

        let presence = PresenceLatencies()
        let watcher = try await TestClients.subscribed(
            broker, to: ["gateway/\(Self.presenceDevice)/connection"], onMessage: presence.handler(device: Self.presenceDevice))
        let presenceClient = try await TestClients.connected(try TestClients.configuration(broker))
        let answers = AnswerTally()
        let requester = "app-burst"
        let app = try await TestClients.subscribed(broker, to: ["replies/\(requester)/#"], onMessage: answers.handler)

        // The whole retention window (36 h), less a margin for the clock moving on.
        let query = #"{"from":\#(now - 129_000),"to":\#(now + 60)}"#
        let started = ContinuousClock.now
        async let burst: Void = Self.sendQueries(app, requester: requester, query: query)
        // The other device changes its status every 50 ms while the burst is handled: the pace
        // of its traffic, not a wait for anything.
        for index in 0..<Self.presenceCount {
            let state = index % 2 == 0 ? "online" : "offline"
            presence.sent(index)
            try await presenceClient.send(
                MQTTMessage(topic: "wearables/\(Self.presenceDevice)/status", string: #"{"state":"\#(state)","date":\#(PresenceLatencies.baseDate + index)}"#))
            try await Task.sleep(for: .milliseconds(50))
        }
        try await burst

        let allAnswered = await answers.state.wait(timeout: 240) { $0.finals.count >= Self.queryCount }
        let allPresent = await presence.state.wait(timeout: 60) { $0.arrived.count >= Self.presenceCount }
        let elapsed = (ContinuousClock.now - started).inSeconds
        let latencies = presence.latencies
        let p95 = latencies.isEmpty ? .infinity : latencies[min(latencies.count - 1, Int((Double(latencies.count) * 0.95).rounded(.up)) - 1)]
        let finals = answers.state.value.finals
        let withData = finals.values.filter { $0.errorCode == nil }
        let refusals = finals.values.compactMap(\.errorCode)
        print(
            "recorder query burst: \(finals.count) of \(Self.queryCount) queries answered in \(String(format: "%.1f", elapsed)) s, \(withData.count) with data, \(refusals.count) refused; presence p95 \(String(format: "%.3f", p95)) s, max \(String(format: "%.3f", latencies.last ?? .infinity)) s over \(latencies.count) of \(Self.presenceCount)")

        #expect(allAnswered, "\(finals.count) of \(Self.queryCount) queries got a final answer")
        #expect(allPresent, "\(latencies.count) of \(Self.presenceCount) presence events arrived")
        #expect(p95 <= 1.0, "presence p95 \(p95) s")
        // Every data answer is the whole history; every other answer is a refusal for load.
        let expectedSamples = Self.hours * Self.samplesPerHour
        #expect(!withData.isEmpty)
        #expect(withData.allSatisfy { $0.count == expectedSamples }, "\(withData.map(\.count))")
        #expect(refusals.allSatisfy { $0 == "tooManyQueries" || $0 == "busy" }, "\(Set(refusals))")
        #expect(!refusals.isEmpty, "one app's 300 queries at once exceed recorder.maxQueriesPerRequester")
        #expect(withData.count + refusals.count == finals.count)
        try await run.waitForMetric("gateway_recorder_queries_total", labels: ["outcome": "answered"], atLeast: Double(withData.count))
        let tooMany = refusals.filter { $0 == "tooManyQueries" }.count
        try await run.waitForMetric("gateway_recorder_queries_total", labels: ["outcome": "tooManyQueries"], atLeast: Double(tooMany))
        try await run.waitForMetric("gateway_recorder_queries_total", labels: ["outcome": "busy"], atLeast: Double(refusals.count - tooMany))

        await app.shutdown()
        await presenceClient.shutdown()
        await watcher.shutdown()
        try await run.stop()
    }

    @Test("a query payload over recorder.maxQueryPayloadBytes gets the error answer payloadTooLarge and is counted")
    func oversizedQuery() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let requester = try await RecorderRequester.connect(broker)
        let padding = String(repeating: "x", count: 5_000)
        let answers = try await requester.ask(Self.recordingDevice, #"{"from":1000,"to":2000,"note":"\#(padding)"}"#, correlation: "big")
        #expect(answers.count == 1)
        let error = RecorderRequester.object(answers[0])["error"] as? [String: Any]
        #expect(error?["code"] as? String == "payloadTooLarge")
        #expect((error?["detail"] as? String)?.contains("4096") == true, "\(error ?? [:])")
        try await run.waitForMetric("gateway_recorder_queries_total", labels: ["outcome": "payloadTooLarge"], atLeast: 1)
        // A query within the cap is still answered.
        let small = try await requester.ask(Self.recordingDevice, #"{"from":1000,"to":2000}"#, correlation: "small")
        #expect(RecorderRequester.object(try #require(small.last))["count"] as? Int == 0)
        await requester.shutdown()
        try await run.stop()
    }

    @Test("answers hold at most their budget of the publisher's in-flight slots: with the broker frozen, a device event is still handed over")
    func answerBudgetLeavesSlots() async throws {
        let broker = try await TestBroker.started()
        var configuration = try TestClients.configuration(broker)
        configuration.maximumInflightPublishes = 16
        let client = try await TestClients.connected(configuration)
        let budget = RecorderAnswerBudget(limit: 4)
        // No acknowledgement comes back while the broker is frozen: whatever is handed over stays in flight.
        broker.freeze()
        defer { broker.thaw() }
        let chunk = MQTTMessage(topic: "replies/app-1/answers", payload: [UInt8](repeating: 0x20, count: 100_000), qos: .atLeastOnce)
        let answers = Task {
            for _ in 0..<40 { try await budget.send(chunk, on: client) }
        }
        // Polls the budget's waiter count (bounded): the answers stop at their budget.
        let deadline = ContinuousClock.now + .seconds(10)
        while budget.waiting < 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(budget.waiting == 1, "the answers stopped at their budget, not at the connection's slots")
        #expect(budget.inFlight == 4)
        #expect(client.statistics.publishesInFlight == 4)
        // A device event finds one of the 12 slots left; without the budget all 16 are answers
        // and this send waits until the broker acknowledges again.
        let event = MQTTMessage(topic: "gateway/watch-1/connection", string: #"{"state":"online"}"#, qos: .atLeastOnce)
        let handedOver = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await client.send(event)) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))  // the bound, not a synchronisation
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(handedOver, "the device event was not handed over within 5 s")
        #expect(client.statistics.publishesInFlight == 5)
        broker.thaw()
        try await answers.value
        #expect(await client.flush(timeout: 30))
        #expect(budget.inFlight == 0)
        await client.shutdown()
    }

    /// Sends `queryCount` queries as fast as the client's in-flight window allows.
    private static func sendQueries(_ app: MQTTClient, requester: String, query: String) async throws {
        for index in 0..<queryCount {
            try await app.send(
                MQTTMessage(
                    topic: "gateway/\(recordingDevice)/recorder/query/\(requester)", string: query, qos: .atLeastOnce,
                    properties: MQTTProperties(responseTopic: "replies/\(requester)/answers", correlationData: Array("q-\(index)".utf8))))
        }
    }

    /// Stores `hours` chunks of the recording device, one per hour back from `now`.
    private func recordHistory(_ broker: TestBroker, _ run: GatewayRun, now: Double) async throws {
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await device.send(MQTTMessage(topic: "wearables/\(Self.recordingDevice)/hello", string: Self.hello, qos: .atLeastOnce, retain: true))
        for hour in 0..<Self.hours {
            let chunk = CoreMotionFidelityTests.recorded(identifier: UInt64(hour + 1), from: now - Double(hour) * 3600 - 600, count: Self.samplesPerHour)
            var writer = JSONWriter()
            chunk.write(to: &writer)
            try await device.send(MQTTMessage(topic: "wearables/\(Self.recordingDevice)/recorder/accelerometer", payload: writer.bytes, qos: .atLeastOnce))
        }
        #expect(await device.flush(timeout: 30))
        await device.shutdown()
        try await run.waitForMetric("gateway_recorder_samples_stored_total", atLeast: Double(Self.hours * Self.samplesPerHour))
    }
}

/// When each presence frame of the other device was sent and when its connection event arrived.
private final class PresenceLatencies: Sendable {
    static let baseDate = 1_800_000_000
    let state = WatchedState<(sent: [Int: ContinuousClock.Instant], arrived: [Int: ContinuousClock.Instant])>(([:], [:]))

    func sent(_ index: Int) {
        let now = ContinuousClock.now
        state.update { $0.sent[index] = now }
    }

    /// For an observer of `gateway/{device}/connection`: notes the first arrival of each frame.
    func handler(device: String) -> MQTTClient.MessageHandler {
        let topic = "gateway/\(device)/connection"
        return { [state] message in
            let now = ContinuousClock.now
            guard message.topic == topic,
                let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                let date = object["date"] as? Double
            else { return }
            let index = Int(date) - Self.baseDate
            state.update { if $0.arrived[index] == nil { $0.arrived[index] = now } }
        }
    }

    /// Seconds from sending to arrival of every frame that arrived, ascending.
    var latencies: [Double] {
        let value = state.value
        return value.arrived.compactMap { index, arrival in value.sent[index].map { (arrival - $0).inSeconds } }.sorted()
    }
}

/// The final answer of each query by correlation id; chunks (user property `chunk`) are only
/// skipped, so 300 whole-window answers are not kept in memory.
private final class AnswerTally: Sendable {
    /// What a final answer says: an error code, or the number of samples.
    struct Final: Sendable {
        var errorCode: String?
        var count: Int?
    }

    let state = WatchedState<(finals: [String: Final], chunks: Int)>(([:], 0))

    var handler: MQTTClient.MessageHandler {
        { [state] message in
            if message.properties.userProperties.contains(where: { $0.name == "chunk" }) {
                state.update { $0.chunks += 1 }
                return
            }
            guard let correlation = message.properties.correlationData.map({ String(decoding: $0, as: UTF8.self) }) else { return }
            let object = RecorderRequester.object(message)
            let final = Final(errorCode: (object["error"] as? [String: Any])?["code"] as? String, count: object["count"] as? Int)
            state.update { $0.finals[correlation] = final }
        }
    }
}
