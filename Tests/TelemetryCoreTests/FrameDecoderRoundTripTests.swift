import Testing
import TelemetryCore
import TelemetrySimulation

/// Property-style round trips between the contract encoders and the decoder.
@Suite struct FrameDecoderRoundTripTests {
    @Test("simulated traffic decodes, validates and re-encodes byte for byte", arguments: [1, 7, 2024, 65_537] as [UInt64])
    func simulatedTraffic(seed: UInt64) throws {
        var generator = TrafficGenerator(seed: seed, devices: SimulatedFleet.mixed(count: 5), startDate: 1_700_000_000)
        var streams = Set<InboundStream>()
        for frame in generator.advance(to: 40) {
            let stream = try #require(InboundStream(path: frame.stream))
            let decoded = try FrameDecoder.decodeJSON(frame.payload, stream: stream).get()
            #expect(decoded.stream == stream)
            #expect(FrameValidator.validate(decoded) == nil, "\(frame.topic()): \(String(describing: FrameValidator.validate(decoded)))")
            // The simulator wrote the payload with FrameEncoder: encoding the decoded model gives it back.
            #expect(decoded.contractJSON == frame.payload, "\(frame.topic())")
            streams.insert(stream)
        }
        #expect(streams == Set(InboundStream.allCases))
    }

    @Test("random models of every stream survive encode → decode", arguments: [3, 11, 4_099] as [UInt64])
    func randomModels(seed: UInt64) throws {
        var random = RandomFrames(seed: seed)
        for _ in 0..<200 {
            for stream in InboundStream.allCases {
                let model = random.frame(stream)
                let decoded = FrameDecoder.decodeJSON(model.contractJSON, stream: stream)
                #expect(decoded == .success(model), "\(String(decoding: model.contractJSON, as: UTF8.self))")
            }
        }
    }
}
