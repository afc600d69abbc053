import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

/// The historical accelerometer end to end: chunks stored through a real mosquitto, queried
/// back with MQTT 5 request/response, kept across a gateway restart.
@Suite("Recorder store and queries through a real broker")
struct RecorderQueryTests {
    private static let device = "watch-rec-1"
    /// An hour ago, on a minute boundary: inside the retention window (older data is pruned).
    private static let start = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 3600

    /// 60 s of 50 Hz samples in 20 chunks of 150, identifier 42; acceleration values are unique
    /// per sample so a wrong or repeated sample shows.
    private static let chunks: [RecordedAccelerometerChunk] = (0..<20).map { chunk in
        let samples = (0..<150).map { i in
            let index = chunk * 150 + i
            let date = start + Double(index) * 0.02
            return RecordedAccelerometerSample(
                timestamp: date - start + 5_000, startDate: date,
                acceleration: Vector3(x: Double(index) / 10_000, y: -0.6, z: 0.8))
        }
        return RecordedAccelerometerChunk(identifier: 42, samples: samples)
    }

    private static let hello = #"{"model":"Apple Watch Series 9","platform":"watchOS","osVersion":"10.1","app":"com.example.tremor","authorization":"authorized"}"#

    /// Publishes the hello and the chunks (the 5th twice, the 8th after the 9th) and waits until
    /// the gateway has processed all of them.
    private func publishChunks(_ broker: TestBroker, _ run: GatewayRun) async throws {
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        var order = Array(Self.chunks.indices)
        order.swapAt(7, 8)
        order.insert(4, at: 5)
        try await device.send(MQTTMessage(topic: "wearables/\(Self.device)/hello", string: Self.hello, qos: .atLeastOnce, retain: true))
        for index in order {
            var writer = JSONWriter()
            Self.chunks[index].write(to: &writer)
            try await device.send(MQTTMessage(topic: "wearables/\(Self.device)/recorder/accelerometer", payload: writer.bytes, qos: .atLeastOnce))
        }
        #expect(await device.flush(timeout: 30))
        await device.shutdown()
        try await run.waitForMetric("gateway_frames_processed_total", atLeast: Double(order.count + 1))
        try await run.waitForMetric("gateway_recorder_duplicate_samples_total", atLeast: 150)
    }

    /// The samples of the answer's chunks, in order, checking chunk numbering and the final marker.
    private func samples(of answers: [MQTTMessage]) -> [StoredRecorderSample] {
        let objects = answers.map(RecorderRequester.object)
        let chunks = objects.filter { $0["final"] as? Bool == false }
        #expect(chunks.map { $0["chunk"] as? Int } == chunks.indices.map { $0 })
        let final = objects.last
        #expect(final?["final"] as? Bool == true)
        #expect(final?["chunks"] as? Int == chunks.count)
        var result: [StoredRecorderSample] = []
        for chunk in chunks {
            for sample in chunk["samples"] as? [[String: Any]] ?? [] {
                let acceleration = sample["acceleration"] as? [String: Double] ?? [:]
                result.append(
                    StoredRecorderSample(
                        identifier: (sample["identifier"] as? NSNumber)?.uint64Value ?? 0,
                        sample: RecordedAccelerometerSample(
                            timestamp: sample["timestamp"] as? Double ?? .nan, startDate: sample["startDate"] as? Double ?? .nan,
                            acceleration: Vector3(x: acceleration["x"] ?? .nan, y: acceleration["y"] ?? .nan, z: acceleration["z"] ?? .nan))))
            }
        }
        #expect(final?["count"] as? Int == result.count)
        return result
    }

    @Test("a query returns exactly the stored samples of its range, in order, in chunks with a final marker")
    func queryReturnsRange() async throws {
        let broker = try await TestBroker.started()
        var configuration = try GatewayHarness.configuration(broker: broker)
        configuration.recorder.queryChunkSamples = 250
        let run = try await GatewayRun.start(broker, configuration: configuration)
        try await publishChunks(broker, run)

        let requester = try await RecorderRequester.connect(broker)
        let all = Self.chunks.flatMap(\.samples)
        // Inclusive at both ends: samples 100 through 2,345.
        let from = all[100].startDate
        let to = all[2345].startDate
        let answers = try await requester.ask(Self.device, #"{"from":\#(from),"to":\#(to)}"#, correlation: "range-1")
        #expect(answers.allSatisfy { $0.properties.contentType == "application/json" && !$0.retain })
        let received = samples(of: answers)
        #expect(received.count == 2246)
        let exact = received.map(\.sample) == Array(all[100...2345])
        #expect(exact, "the answer differs from the stored samples 100...2345")
        #expect(received.allSatisfy { $0.identifier == 42 })
        #expect(answers.count == 10)  // ceil(2246 / 250) chunks + the final marker

        // A range with nothing stored: only the final marker.
        let empty = try await requester.ask(Self.device, #"{"from":\#(Self.start - 7200),"to":\#(Self.start - 1)}"#, correlation: "empty")
        #expect(empty.count == 1)
        #expect(RecorderRequester.object(empty[0])["count"] as? Int == 0)
        await requester.shutdown()
        try await run.stop()
    }

    @Test("bad requests get one final error naming the problem; a request without a response topic is counted")
    func badRequests() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let requester = try await RecorderRequester.connect(broker)
        let cases = [
            (#"{"from":0,"to":200000}"#, "rangeTooLong"),  // beyond the 36 h retention window
            (#"{"from":2000,"to":1000}"#, "invalidRange"),
            (#"{"from":"yesterday","to":1000}"#, "invalidRequest"),
            (#"not json"#, "invalidRequest"),
            (#"{"from":1000,"to":2000,"kind":"gyro"}"#, "invalidRequest"),
        ]
        for (index, (payload, code)) in cases.enumerated() {
            let answers = try await requester.ask(Self.device, payload, correlation: "bad-\(index)")
            #expect(answers.count == 1, "\(payload)")
            let error = RecorderRequester.object(answers[0])["error"] as? [String: Any]
            #expect(error?["code"] as? String == code, "\(payload)")
            #expect((error?["detail"] as? String)?.isEmpty == false)
        }
        try await requester.client.send(MQTTMessage(topic: requester.queryTopic(Self.device), string: #"{"from":1000,"to":2000}"#, qos: .atLeastOnce))
        try await run.waitForMetric("gateway_recorder_queries_total", labels: ["outcome": "noResponseTopic"], atLeast: 1)
        await requester.shutdown()
        try await run.stop()
    }

    @Test("an answer goes only below replies/{requester}: other response topics and unnamed requesters get none, an error event and a count")
    func repliesConfined() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let requester = try await RecorderRequester.connect(broker)
        let (other, watcher) = try await TestClients.observer(broker, subscribedTo: ["replies/#", "wearables/#"])
        let payload = #"{"from":1000,"to":2000}"#
        let attacks: [(topic: String, responseTopic: String?)] = [
            (requester.queryTopic(Self.device), "gateway/status"),
            (requester.queryTopic(Self.device), "replies/another-app/stolen"),
            (requester.queryTopic(Self.device), "wearables/\(Self.device)/status"),
            ("gateway/\(Self.device)/recorder/query", requester.responseTopic),
            ("gateway/\(Self.device)/recorder/query/a/b", "replies/a/b/x"),
        ]
        for (index, attack) in attacks.enumerated() {
            try await requester.client.send(
                MQTTMessage(
                    topic: attack.topic, string: payload, qos: .atLeastOnce,
                    properties: MQTTProperties(responseTopic: attack.responseTopic, correlationData: Array("attack-\(index)".utf8))))
        }
        // Queries are answered one at a time in arrival order: once this one is answered, the
        // gateway has handled every attack above.
        let answers = try await requester.ask(Self.device, payload, correlation: "control")
        #expect(answers.count == 1)
        #expect(answers.allSatisfy { $0.topic == requester.responseTopic })
        // The watcher gets the gateway's answers in publication order: an answer to an attack
        // would arrive before the control's.
        try await watcher.wait("the control answer") { $0.contains { $0.topic == requester.responseTopic } }

        let errors = try await run.collector.wait("an error event per rejected query") { messages in
            messages.filter { $0.topic == "gateway/\(Self.device)/errors" }.count >= attacks.count
        }.filter { $0.topic == "gateway/\(Self.device)/errors" }.map(RecorderRequester.object)
        #expect(errors.map { $0["code"] as? String } == [
            "foreignResponseTopic", "foreignResponseTopic", "foreignResponseTopic", "unprovenRequester", "unprovenRequester",
        ])
        #expect(errors.allSatisfy { $0["stream"] as? String == "recorder/query" && $0["deviceId"] as? String == Self.device })
        try await run.waitForMetric("gateway_recorder_queries_total", labels: ["outcome": "foreignResponseTopic"], atLeast: 3)
        try await run.waitForMetric("gateway_recorder_queries_total", labels: ["outcome": "unprovenRequester"], atLeast: 2)
        try await run.waitForMetric("gateway_error_events_total", atLeast: Double(attacks.count))

        // Nothing but the online status on gateway/status; no answer anywhere but the requester's topic.
        let statuses = run.collector.messages.filter { $0.topic == "gateway/status" }
        #expect(statuses.count == 1)
        #expect(statuses.allSatisfy { RecorderRequester.object($0)["state"] as? String == "online" })
        // (The observer also sees the queries themselves, which carry correlation data.)
        #expect(run.collector.messages.filter { !$0.topic.contains("/recorder/query") }.allSatisfy { $0.properties.correlationData == nil })
        let elsewhere = watcher.messages.filter { $0.topic != requester.responseTopic }
        #expect(elsewhere.isEmpty, "answers elsewhere: \(elsewhere.map(\.topic))")
        #expect(requester.collector.messages.allSatisfy { $0.properties.correlationData == Array("control".utf8) })
        await other.shutdown()
        await requester.shutdown()
        try await run.stop()
    }

    @Test("restarting the gateway keeps the stored window")
    func restartKeepsWindow() async throws {
        let broker = try await TestBroker.started()
        let configuration = try GatewayHarness.configuration(broker: broker)
        let first = try await GatewayRun.start(broker, configuration: configuration)
        try await publishChunks(broker, first)
        try await first.stop()

        let second = try await GatewayRun.start(broker, configuration: configuration)
        let requester = try await RecorderRequester.connect(broker)
        let all = Self.chunks.flatMap(\.samples)
        let answers = try await requester.ask(
            Self.device, #"{"from":\#(Self.start),"to":\#(Self.start + 3600),"kind":"accelerometer"}"#, correlation: "after-restart")
        let received = samples(of: answers)
        #expect(received.count == all.count, "\(answers.last.map(\.payloadString) ?? "no answer")")
        let exact = received.map(\.sample) == all
        #expect(exact, "the answer after the restart differs from the stored samples")
        await requester.shutdown()
        try await second.stop()
    }
}
