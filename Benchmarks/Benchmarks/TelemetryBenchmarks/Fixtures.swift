import Foundation
import TelemetryCore
import TelemetrySimulation

/// Realistic payloads from the seeded simulator, made once.
enum Fixtures {
    /// One second of traffic of an Apple Watch Series 9 playing baseball: the 800-sample
    /// accelerometer batch and the 200-sample device-motion batch, as JSON.
    static let frames: [SimulatedFrame] = {
        var generator = TrafficGenerator(
            seed: 7, devices: [.appleWatchSeries9(id: "watch-bench-1", activity: .baseball)], startDate: 1_700_000_000)
        return generator.advance(to: 2)
    }()

    static func payload(_ stream: String) -> [UInt8] {
        guard let frame = frames.last(where: { $0.stream == stream }) else {
            fatalError("the simulated Series 9 produced no \(stream) frame")
        }
        return frame.payload
    }

    /// The same watch over two minutes, as the gateway receives it: a warm-up prefix (the first
    /// two simulated seconds: hello, authorization, workout start, …) and 120 steady-state
    /// seconds of every stream, for the ``Replay`` benchmarks.
    static let timeline = makeTimeline(encoding: .json)

    /// ``timeline`` with the high-rate frames in protobuf, as a fleet that switched sends them
    /// (the MQTT 5 content type marks them; every other stream stays JSON).
    static let protobufTimeline = makeTimeline(encoding: .protobuf)

    private static func makeTimeline(encoding: PayloadEncoding) -> (prefix: [InboundFrame], seconds: [[InboundFrame]]) {
        let startDate = 1_700_000_000.0
        var generator = TrafficGenerator(
            seed: 7, devices: [.appleWatchSeries9(id: "watch-bench-1", activity: .baseball)], startDate: startDate)
        func inbound(_ frames: [SimulatedFrame]) -> [InboundFrame] {
            frames.map { frame in
                let encoded = frame.encoded(as: encoding)
                return InboundFrame(
                    topic: encoded.topic(), payload: encoded.payload,
                    contentType: encoded.encoding == .json ? nil : encoded.encoding.mediaType,
                    retained: encoded.retain, receivedAt: startDate + encoded.time)
            }
        }
        let prefix = inbound(generator.advance(to: 2))
        let seconds = (3...122).map { inbound(generator.advance(to: Double($0))) }
        return (prefix, seconds)
    }

    /// The last `stream` frame's payload in a JSON style (`wearable-sim --json-style`).
    static func payload(_ stream: String, style: JSONStyle) -> [UInt8] {
        guard let frame = frames.last(where: { $0.stream == stream }) else {
            fatalError("the simulated Series 9 produced no \(stream) frame")
        }
        return frame.styled(style).payload
    }

    /// The last `stream` frame's payload as protobuf (float32 sensor values).
    static func protobufPayload(_ stream: String) -> [UInt8] {
        guard let frame = frames.last(where: { $0.stream == stream }), frame.encoded(as: .protobuf).encoding == .protobuf else {
            fatalError("the simulated Series 9 produced no \(stream) frame in protobuf")
        }
        return frame.encoded(as: .protobuf).payload
    }

    static let accelerometerBatch = payload("batched/accelerometer")
    static let deviceMotionBatch = payload("batched/device-motion")
    static let motionFrame = payload("motion")

    /// The accelerometer batch as the decoder's model (input of the encoder benchmark).
    static let decodedAccelerometerBatch: AccelerometerBatch = {
        guard case .success(.batchedAccelerometer(let batch)) = FrameDecoder.decodeJSON(accelerometerBatch, stream: .batchedAccelerometer) else {
            fatalError("the simdjson decoder rejected the simulated accelerometer batch")
        }
        return batch
    }()

    /// The device-motion batch as the decoder's model (input of the encoder benchmark).
    static let decodedDeviceMotionBatch: DeviceMotionBatch = {
        guard case .success(.batchedDeviceMotion(let batch)) = FrameDecoder.decodeJSON(deviceMotionBatch, stream: .batchedDeviceMotion) else {
            fatalError("the simdjson decoder rejected the simulated device-motion batch")
        }
        return batch
    }()

    /// Traps unless every decoder reads every sample of the fixtures and the processor accepts
    /// them: a benchmark of a decoder that bails out early would measure the wrong thing.
    static func checkDecodersAgree() {
        let accelerometerSamples = decodedAccelerometerBatch.samples.count
        let deviceMotionSamples = decodedDeviceMotionBatch.samples.count
        precondition(accelerometerSamples == 800, "accelerometer batch has \(accelerometerSamples) samples, expected 800")
        precondition(deviceMotionSamples == 200, "device-motion batch has \(deviceMotionSamples) samples, expected 200")

        let codableAccelerometer = try? JSONDecoder().decode(CodableAccelerometerBatch.self, from: Data(accelerometerBatch))
        precondition(codableAccelerometer?.samples.count == accelerometerSamples, "JSONDecoder baseline failed on the accelerometer batch")
        let codableDeviceMotion = try? JSONDecoder().decode(CodableDeviceMotionBatch.self, from: Data(deviceMotionBatch))
        precondition(codableDeviceMotion?.samples.count == deviceMotionSamples, "JSONDecoder baseline failed on the device-motion batch")
        let serialized = (try? JSONSerialization.jsonObject(with: Data(accelerometerBatch))) as? [String: Any]
        precondition((serialized?["samples"] as? [Any])?.count == accelerometerSamples, "JSONSerialization baseline failed on the accelerometer batch")

        // The replayed seconds: one batch of each kind per second, and every frame accepted
        // (a rejected frame would skip the derivations the replay benchmarks are meant to include).
        for replay in [Replay(), Replay(encoding: .protobuf)] {
            checkReplay(replay)
        }
        // The simulator benchmark's unit: one steady-state second holds one batch of each kind.
        var generator = TrafficGenerator(
            seed: 7, devices: [.appleWatchSeries9(id: "watch-bench-1", activity: .baseball)], startDate: 1_700_000_000)
        _ = generator.advance(to: 2)
        let second = generator.advance(by: 1)
        for stream in ["batched/accelerometer", "batched/device-motion"] {
            let count = second.count { $0.stream == stream }
            precondition(count == 1, "one simulated second has \(count) \(stream) frames, expected 1")
        }
        if ProcessInfo.processInfo.environment["WG_BENCHMARK_PRINT_SIZES"] != nil {
            let streams = Dictionary(grouping: second, by: \.stream).mapValues(\.count).sorted { $0.key < $1.key }
            print("one simulated second: \(second.count) frames, \(second.reduce(0) { $0 + $1.payload.count }) bytes: \(streams)")
            print("payload bytes: batched/accelerometer \(accelerometerBatch.count), batched/device-motion \(deviceMotionBatch.count), motion \(motionFrame.count)")
        }
    }

    /// Traps unless each replayed second holds one batch of each kind and every frame is accepted
    /// (a rejected frame would skip the derivations the replay benchmarks are meant to include).
    private static func checkReplay(_ replay: Replay) {
        for _ in replay.seconds.indices {
            let second = replay.nextSecond()
            for stream in ["batched/accelerometer", "batched/device-motion"] {
                let count = second.count { $0.topic.hasSuffix("/" + stream) }
                precondition(count == 1, "a replayed second has \(count) \(stream) frames, expected 1")
            }
            for frame in second {
                if frame.topic.contains("/batched/") {
                    precondition(PayloadEncoding(contentType: frame.contentType) == replay.encoding, "\(frame.topic) is not \(replay.encoding)")
                }
                let result = replay.process(frame)
                guard case .accepted = result.outcome else {
                    fatalError("FrameProcessor did not accept \(frame.topic): \(result.outcome) \(result.problem.map { "\($0)" } ?? "")")
                }
            }
        }
    }
}
