import BrokerTestSupport
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

/// The simulator's traffic for every stream, JSON and binary, through a real broker and the
/// gateway: all of it is decoded and validated without a single error, and one corrupted
/// batch yields exactly one precise error event.
@Suite("Simulator traffic through the gateway")
struct SimulatorTrafficTests {
    @Test("every stream decodes and validates; a corrupted batch is reported exactly")
    func simulatorTraffic() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let gateway = run.gateway
        let observer = run.observer

        // 40 simulated seconds of a mixed fleet: every inbound stream of the contract.
        var generator = TrafficGenerator(seed: 11, deviceCount: 5, startDate: 1_700_000_000)
        let frames = generator.advance(to: 40)
        let streams = Set(frames.map(\.stream))
        #expect(streams == Set(InboundStream.allCases.map(\.rawValue)), "the simulator must exercise every stream")
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        for frame in frames {
            try await device.send(
                MQTTMessage(
                    topic: frame.topic(), payload: frame.payload, qos: frame.qos, retain: frame.retain,
                    properties: .init(contentType: "application/json")))
        }
        // The same batches in the binary encoding.
        var binaryCount = 0
        for frame in frames where InboundStream(rawValue: frame.stream)?.isHighRate == true {
            let model = try FrameDecoder.decodeJSON(frame.payload, stream: try #require(InboundStream(rawValue: frame.stream))).get()
            let binary = try #require(ProtobufFrameEncoder.encode(model))
            try await device.send(
                MQTTMessage(topic: frame.topic(), payload: binary, properties: .init(contentType: "application/x-protobuf")))
            binaryCount += 1
        }
        // One corrupted accelerometer batch: a string where a number belongs, in sample 3.
        let corrupted = #"{"samples":[{"timestamp":1,"acceleration":{"x":0,"y":0,"z":1}},{"timestamp":1.00125,"acceleration":{"x":0,"y":0,"z":1}},{"timestamp":1.0025,"acceleration":{"x":0,"y":0,"z":1}},{"timestamp":1.00375,"acceleration":{"x":0,"y":0,"z":"one"}}]}"#
        try await device.send(MQTTMessage(topic: "wearables/watch-ultra-1/batched/accelerometer", string: corrupted))
        #expect(await device.flush(timeout: 60))
        let total = frames.count + binaryCount + 1

        let received = try await run.waitForMetric("gateway_frames_processed_total", atLeast: Double(total))
        let errors = received.filter { $0.topic.hasSuffix("/errors") }
        #expect(errors.count == 1, "\(errors.map(\.payloadString))")
        let error = try json(try #require(errors.first))
        #expect(error["code"] as? String == "invalidPayload")
        #expect(error["stream"] as? String == "batched/accelerometer")
        #expect(error["deviceId"] as? String == "watch-ultra-1")
        #expect((error["detail"] as? String)?.hasPrefix("samples[3].acceleration.z:") == true, "\(error)")

        try await gateway.stop()
        let text = gateway.metrics
        #expect(text.sum("gateway_messages_received_total") == Double(total))
        #expect(text.sum("gateway_frames_rejected_total") == 1)
        #expect(text.sum("gateway_frames_accepted_total") == Double(total - 1))
        #expect(text.sum("gateway_sequence_anomalies_total", labels: ["kind": "missing"]) == 0)
        await device.shutdown()
        await observer.shutdown()
    }
}
