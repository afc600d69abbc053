import Testing

@testable import TelemetryCore

@Suite struct FrameProcessorTests {
    private static let w1 = DeviceID("w1")!

    /// The device error report the processor should publish; `eventId` computed as documented.
    private static func deviceError(
        _ id: String, _ code: GatewayErrorCode, _ stream: InboundStream, _ detail: String,
        count: Int = 1, date: Double = 1_000, firstDate: Double = 1_000
    ) -> OutboundMessage {
        var writer = JSONWriter()
        writer.object {
            $0.field("deviceId", id)
            $0.field("code", code.rawValue)
            $0.field("cmError", code.cmError)
            $0.field("stream", stream.rawValue)
            $0.field("detail", detail)
            $0.field("count", count)
            $0.field("date", date)
            $0.field("firstDate", firstDate)
            $0.field(
                "eventId",
                EventID.make(id, "error", code.rawValue, stream.rawValue, String(describing: firstDate), String(describing: date), String(count))
            )
        }
        return OutboundMessage(topic: "gateway/\(id)/errors", payload: writer.bytes, qos: .atLeastOnce, retain: false).about(id, on: .errors)
    }

    /// A valid `altimeter` payload.
    private static let altimeter = #"{"timestamp":1,"relativeAltitude":0,"pressure":100}"#

    // MARK: Accepting

    @Test("accepts a valid frame and hands over its model without publishing anything")
    func accepts() {
        var processor = FrameProcessor()
        let json = #"{"samples":[{"timestamp":1,"attitude":{"x":0,"y":0,"z":0,"w":1},"rotationRate":{"x":0,"y":0,"z":0},"gravity":{"x":0,"y":0,"z":-1},"userAcceleration":{"x":0,"y":0,"z":0}}]}"#
        let result = processor.process(.json("wearables/w1/motion", json))
        let sample = DeviceMotion(timestamp: 1, attitude: .identity, rotationRate: .zero, gravity: Vector3(x: 0, y: 0, z: -1), userAcceleration: .zero)
        var expected = FrameResult(outcome: .accepted(.motion), messages: [], frame: .motion(DeviceMotionBatch(samples: [sample])))
        // Device motion (not a batch of the workout streams) can change the device's snapshot.
        expected.changesSnapshot = true
        #expect(result == expected)
        #expect(result.sequence == nil)
        #expect(processor.nextDeadline() == nil)
    }

    @Test("accepts every stream's golden fixture with its model", arguments: InboundStream.allCases)
    func acceptsFixtures(_ stream: InboundStream) throws {
        var processor = FrameProcessor()
        let result = processor.process(InboundFrame(topic: "wearables/w1/\(stream.rawValue)", payload: try Fixture.json(stream), receivedAt: 1_000))
        #expect(result.outcome == .accepted(stream))
        #expect(result.frame == FrameDecoderFixtureTests.expected[stream])
        #expect(result.sequence == (result.frame?.sequence == nil ? nil : .first))
    }

    // MARK: Decoding and validation

    @Test("reports decoding and validation problems as invalidPayload with their detail", arguments: [
        (InboundStream.batchedAccelerometer, #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":"3"}}]}"#, "samples[0].acceleration.z: not a number"),
        (.batchedAccelerometer, #"{"samples":[]}"#, "samples: empty batch; batched/accelerometer frames carry 1…1600 samples"),
        (.batchedAccelerometer, #"{"samples":[{"timestamp":1,"acceleration":{"x":0,"y":0,"z":70}}]}"#, "samples[0].acceleration: magnitude 70 g exceeds 64 g"),
        (.submersionMeasurement, #"{"date":1,"depth":250,"pressure":200,"surfacePressure":101,"submersionState":"pastMaxDepth"}"#, "depth: 250 m is outside -1…200 m"),
        (.submersionEvent, #"{"date":1,"state":"diving"}"#, "state: unknown value 'diving'; expected one of unknown (0), notSubmerged (1), submerged (2)"),
        (.altimeter, #"{"timestamp":1,"relativeAltitude":0}"#, "pressure: missing"),
    ])
    func invalidPayloads(_ stream: InboundStream, _ json: String, _ detail: String) {
        var processor = FrameProcessor()
        let result = processor.process(.json("wearables/w1/\(stream.rawValue)", json))
        #expect(result.outcome == .rejected(.invalidPayload, stream))
        #expect(result.frame == nil)
        #expect(result.problem?.detail == detail)
        #expect(result.messages == [Self.deviceError("w1", .invalidPayload, stream, detail)])
    }

    @Test("applies the configured validation limits")
    func configuredLimits() {
        var processor = FrameProcessor(configuration: .init(validationLimits: ValidationLimits(motionBatchLength: 1...1)))
        let sample = #"{"timestamp":1,"attitude":{"x":0,"y":0,"z":0,"w":1},"rotationRate":{"x":0,"y":0,"z":0},"gravity":{"x":0,"y":0,"z":-1},"userAcceleration":{"x":0,"y":0,"z":0}}"#
        let result = processor.process(.json("wearables/w1/headphone/motion", #"{"samples":[\#(sample),\#(sample)]}"#))
        #expect(result.messages == [Self.deviceError("w1", .invalidPayload, .headphoneMotion, "samples: 2 samples; headphone/motion frames carry 1…1")])
    }

    // MARK: Sequence

    @Test("counts gaps, duplicates and reorders per device and stream, and still accepts the frames")
    func sequences() {
        var processor = FrameProcessor()
        let observations = [1, 2, 5, 5, 4].map { number in
            let result = processor.process(.json("wearables/w1/altimeter", #"{"sequence":\#(number),"timestamp":1,"relativeAltitude":0,"pressure":100}"#))
            #expect(result.outcome == .accepted(.altimeter))
            return result.sequence
        }
        #expect(observations == [.first, .next, .gap(missing: 2), .duplicate, .reordered])
        // Another device's numbering is its own.
        #expect(processor.process(.json("wearables/w2/altimeter", #"{"sequence":9,"timestamp":1,"relativeAltitude":0,"pressure":100}"#)).sequence == .first)
        var expected = SequenceCounters()
        expected.frames = 6
        expected.missing = 2
        expected.duplicates = 1
        expected.reordered = 1
        #expect(processor.sequenceCounters(for: .altimeter) == expected)
        #expect(processor.sequenceCounters(for: .motion) == SequenceCounters())
    }

    @Test("forgets a device's numbering when it goes offline")
    func offlineForgetsSequences() {
        var processor = FrameProcessor()
        let frame = { (number: Int) in InboundFrame.json("wearables/w1/altimeter", #"{"sequence":\#(number),"timestamp":1,"relativeAltitude":0,"pressure":100}"#) }
        #expect(processor.process(frame(40)).sequence == .first)
        #expect(processor.process(frame(41)).sequence == .next)
        _ = processor.process(.json("wearables/w1/status", #"{"state":"offline"}"#))
        #expect(processor.process(frame(1)).sequence == .first)
    }

    @Test("bounds the tracked sequences")
    func sequenceBound() {
        var processor = FrameProcessor(configuration: .init(maxTrackedSequences: 1))
        #expect(processor.process(.json("wearables/w1/altimeter", #"{"sequence":1,"timestamp":1,"relativeAltitude":0,"pressure":100}"#)).sequence == .first)
        #expect(processor.process(.json("wearables/w2/altimeter", #"{"sequence":1,"timestamp":1,"relativeAltitude":0,"pressure":100}"#)).sequence == .untracked)
    }

    // MARK: Size, content type, JSON

    @Test("rejects a payload over the limit and accepts one at it")
    func oversize() {
        let limit = Self.altimeter.utf8.count
        var processor = FrameProcessor(configuration: .init(maxPayloadBytes: limit))
        #expect(processor.process(.json("wearables/w1/altimeter", Self.altimeter)).outcome == .accepted(.altimeter))

        let result = processor.process(.json("wearables/w1/altimeter", Self.altimeter + " "))
        #expect(result.outcome == .rejected(.invalidPayload, .altimeter))
        let expected = Self.deviceError(
            "w1", .invalidPayload, .altimeter, "payload has \(limit + 1) bytes; the limit is \(limit) bytes (pipeline.maxPayloadBytes)"
        )
        #expect(result.messages == [expected])
        #expect(result.messages.first?.payloadString.contains(#""cmError":107"#) == true)
    }

    @Test("accepts JSON content types", arguments: [
        nil, "application/json", "application/json; charset=utf-8", "Application/JSON;charset=\"UTF-8\"", " application/json ",
    ] as [String?])
    func jsonContentTypes(_ contentType: String?) {
        var processor = FrameProcessor()
        #expect(processor.process(.json("wearables/w1/altimeter", Self.altimeter, contentType: contentType)).outcome == .accepted(.altimeter))
    }

    @Test("rejects other content types", arguments: [
        "text/plain", "", "application/jsonx", "application/json; charset=latin1", "application/json; foo=bar",
        "application/json;", "application/json+fake",
    ])
    func otherContentTypes(_ contentType: String) {
        var processor = FrameProcessor()
        let result = processor.process(.json("wearables/w1/motion", "{}", contentType: contentType))
        #expect(result.outcome == .rejected(.invalidPayload, .motion))
        #expect(result.problem?.reason == .unsupportedEncoding)
        #expect(result.messages == [Self.deviceError("w1", .invalidPayload, .motion, "unsupported content type '\(contentType)'")])
    }

    @Test("rejects payloads that are not a JSON object", arguments: [
        ("{", nil as String?), (#"{"a":1} trailing"#, nil), ("[1]", "top-level JSON value is not an object"), ("", "empty payload"),
        ("42", "top-level JSON value is not an object"),
    ])
    func notAnObject(_ payload: String, _ simdjsonMessage: String?) throws {
        var processor = FrameProcessor()
        let result = processor.process(.json("wearables/w1/altimeter", payload))
        #expect(result.outcome == .rejected(.invalidPayload, .altimeter))
        let detail = try #require(result.messages.first?.string("detail"))
        #expect(detail.hasPrefix("payload is not a JSON object: "), "\(detail)")
        if let simdjsonMessage {
            #expect(result.messages == [Self.deviceError("w1", .invalidPayload, .altimeter, "payload is not a JSON object: \(simdjsonMessage)")])
        } else {
            #expect(detail.count > "payload is not a JSON object: ".count, "the parser's reason must follow")
        }
    }

    // MARK: Status and presence

    @Test("publishes presence on the first status and on changes only")
    func presence() throws {
        var processor = FrameProcessor()
        let online = processor.process(.json("wearables/watch-1/status", #"{"state":"online","date":1700000000}"#, at: 1_700_000_003))
        #expect(online.outcome == .accepted(.status))
        // eventId computed independently (Python): FNV-1a 64 of watch-1␟connection␟connected␟1700000000.0.
        #expect(online.messages == [
            OutboundMessage(
                topic: "gateway/watch-1/connection",
                payload: Array(#"{"deviceId":"watch-1","state":"connected","reason":"online","date":1700000000,"eventId":"0bcf6dbe801e4772"}"#.utf8),
                qos: .atLeastOnce,
                retain: true
            ).about("watch-1", on: .connection)
        ])
        #expect(processor.connectionState(of: DeviceID("watch-1")!) == .connected)

        let again = processor.process(.json("wearables/watch-1/status", #"{"state":"online","date":1700000050}"#, at: 1_700_000_051))
        var unchanged = FrameResult(outcome: .accepted(.status), messages: [], frame: .status(DeviceStatus(state: .online, date: 1_700_000_050), sequence: nil))
        // An applied status is taken as changing the snapshot, even when the presence stays.
        unchanged.changesSnapshot = true
        #expect(again == unchanged)

        let offline = processor.process(.json("wearables/watch-1/status", #"{"state":"offline","date":1700000100.5}"#, at: 1_700_000_101))
        let eventID = EventID.make("watch-1", "connection", "disconnected", "1700000100.5")
        #expect(offline.messages.map(\.payloadString) == [
            #"{"deviceId":"watch-1","state":"disconnected","reason":"offline","date":1700000100.5,"eventId":"\#(eventID)"}"#
        ])
        #expect(offline.messages.first?.retain == true)
        #expect(processor.connectionState(of: DeviceID("watch-1")!) == .disconnected)
    }

    @Test("uses the arrival time when the status has no usable date", arguments: [
        #"{"state":"offline"}"#, #"{"state":"offline","date":null}"#,
    ])
    func statusWithoutDate(_ payload: String) {
        var processor = FrameProcessor()
        // A first status that is offline is published too.
        let result = processor.process(.json("wearables/w1/status", payload, at: 1_234.5))
        let eventID = EventID.make("w1", "connection", "disconnected", "1234.5")
        #expect(result.messages.map(\.payloadString) == [
            #"{"deviceId":"w1","state":"disconnected","reason":"offline","date":1234.5,"eventId":"\#(eventID)"}"#
        ])
    }

    @Test("rejects a status with a missing or invalid state or date and keeps presence", arguments: [
        (#"{"date":1}"#, "state: missing"),
        (#"{"state":1}"#, "state: not a string"),
        (#"{"state":null}"#, "state: not a string"),
        (#"{"state":"away"}"#, "state: unknown value 'away'; expected one of online, offline"),
        (#"{"state":"Online"}"#, "state: unknown value 'Online'; expected one of online, offline"),
        (#"{"status":{"state":"online"}}"#, "state: missing"),
        (#"{"state":"offline","date":"yesterday"}"#, "date: not a number"),
        (#"{"state":"offline","date":-1}"#, "date: -1 is negative"),
    ])
    func badState(_ payload: String, _ detail: String) {
        var processor = FrameProcessor()
        let result = processor.process(.json("wearables/w1/status", payload))
        #expect(result.outcome == .rejected(.invalidPayload, .status))
        #expect(result.messages == [Self.deviceError("w1", .invalidPayload, .status, detail)])
        #expect(processor.connectionState(of: Self.w1) == nil)
    }

    @Test("tracks presence per device")
    func presencePerDevice() {
        var processor = FrameProcessor()
        #expect(processor.process(.json("wearables/a/status", #"{"state":"online"}"#)).messages.count == 1)
        #expect(processor.process(.json("wearables/b/status", #"{"state":"online"}"#)).messages.count == 1)
        #expect(processor.process(.json("wearables/a/status", #"{"state":"online"}"#)).messages.isEmpty)
        #expect(processor.process(.json("wearables/b/status", #"{"state":"offline"}"#)).messages.map(\.topic) == ["gateway/b/connection"])
        #expect(processor.connectionState(of: DeviceID("a")!) == .connected)
        #expect(processor.connectionState(of: DeviceID("b")!) == .disconnected)
    }

    @Test("publishes but does not remember devices beyond maxTrackedDevices")
    func presenceBound() {
        var processor = FrameProcessor(configuration: .init(maxTrackedDevices: 1))
        #expect(processor.process(.json("wearables/a/status", #"{"state":"online"}"#)).messages.count == 1)
        #expect(processor.process(.json("wearables/b/status", #"{"state":"online"}"#)).messages.count == 1)
        #expect(processor.process(.json("wearables/b/status", #"{"state":"online"}"#)).messages.count == 1)
        #expect(processor.connectionState(of: DeviceID("b")!) == nil)
        // A remembered device still changes state.
        #expect(processor.process(.json("wearables/a/status", #"{"state":"offline"}"#)).messages.count == 1)
        #expect(processor.connectionState(of: DeviceID("a")!) == .disconnected)
    }

    @Test("reprocessing the same frames gives the same messages")
    func idempotent() {
        let frames: [InboundFrame] = [
            .json("wearables/w1/status", #"{"state":"online"}"#, at: 10),
            .json("wearables/w1/motion", "[1]", at: 11),
            .json("wearables/w1/motion", "[1]", at: 12),
            .json("wearables/+/motion", "{}", at: 13),
            .json("wearables/w1/status", #"{"state":"offline","date":20.25}"#, at: 21),
        ]
        func run() -> [OutboundMessage] {
            var processor = FrameProcessor()
            return frames.flatMap { processor.process($0).messages } + processor.flush(now: 100)
        }
        let first = run()
        #expect(first.count == 5)
        #expect(first == run())
        #expect(Set(first.compactMap { $0.string("eventId") }).count == 5)
    }

    // MARK: Topic errors

    @Test("reports unknown streams and invalid ids on gateway/errors", arguments: [
        ("wearables/w1/gyro", GatewayErrorCode.unknownStream, "unknown stream 'gyro'; it is not in the wire contract"),
        ("wearables/w1/status/extra", .unknownStream, "unknown stream 'status/extra'; it is not in the wire contract"),
        ("wearables/w1", .unknownStream, "topic has no stream below the device id"),
        ("wearables/a+b/status", .invalidDeviceId, "device id contains '+' at position 2; only A-Z a-z 0-9 . _ - are allowed"),
        ("other/w1/status", .invalidTopic, "topic is not below the inbound root 'wearables/'"),
    ])
    func topicErrors(_ topic: String, _ code: GatewayErrorCode, _ detail: String) {
        var processor = FrameProcessor()
        // The payload is not even looked at: the topic is checked first.
        let result = processor.process(.json(topic, "not json", at: 1_000))
        #expect(result.outcome == .rejected(code, nil))
        let eventID = EventID.make("topic-error", code.rawValue, topic, "1000.0", "1000.0", "1")
        let expected = OutboundMessage(
            topic: "gateway/errors",
            payload: Array(#"{"code":"\#(code.rawValue)","topic":"\#(topic)","detail":"\#(detail)","count":1,"date":1000,"firstDate":1000,"eventId":"\#(eventID)"}"#.utf8),
            qos: .atLeastOnce,
            retain: false
        ).on(.errors)
        #expect(result.messages == [expected])
    }

    @Test("bounds the topic of a topic error")
    func longTopic() throws {
        var processor = FrameProcessor()
        let topic = "wearables/w1/" + String(repeating: "x", count: 10_000)
        let messages = processor.process(.json(topic, "{}")).messages
        let message = try #require(messages.first)
        #expect(message.string("topic") == String(topic.prefix(256)) + "…")
        #expect(message.payload.count < 1_000)
    }

    // MARK: Aggregation

    @Test("aggregates device errors per (device, code, stream) across flushes")
    func aggregation() {
        var processor = FrameProcessor(configuration: .init(errorReportInterval: 10))
        var immediate: [OutboundMessage] = []
        for second in 0..<5 {
            immediate += processor.process(.json("wearables/w1/motion", "[1]", at: 1_000 + Double(second))).messages
        }
        let detail = "payload is not a JSON object: top-level JSON value is not an object"
        #expect(immediate == [Self.deviceError("w1", .invalidPayload, .motion, detail)])
        #expect(processor.pendingErrorCount == 4)
        #expect(processor.nextDeadline() == 1_010)

        // Other keys report at once: another stream, another device.
        #expect(processor.process(.json("wearables/w1/altimeter", "[1]", at: 1_001)).messages.count == 1)
        #expect(processor.process(.json("wearables/w2/motion", "[1]", at: 1_002)).messages.count == 1)

        #expect(processor.flush(now: 1_009.9).isEmpty)
        #expect(processor.flush(now: 1_010) == [Self.deviceError("w1", .invalidPayload, .motion, detail, count: 4, date: 1_004, firstDate: 1_001)])
        #expect(processor.pendingErrorCount == 0)
        // The next windows end empty: nothing more to report, and the keys are forgotten.
        #expect(processor.flush(now: 1_020).isEmpty)
        #expect(processor.nextDeadline() == nil)
        #expect(processor.process(.json("wearables/w1/motion", "[1]", at: 1_021)).messages.count == 1)
    }

    @Test("aggregates topic errors per (code, topic)")
    func topicAggregation() throws {
        var processor = FrameProcessor()
        #expect(processor.process(.json("wearables/w1/gyro", "{}", at: 0)).messages.count == 1)
        #expect(processor.process(.json("wearables/w1/gyro", "{}", at: 1)).messages.isEmpty)
        #expect(processor.process(.json("wearables/w1/gyro", "{}", at: 2)).messages.isEmpty)
        #expect(processor.process(.json("wearables/w2/gyro", "{}", at: 3)).messages.count == 1)
        let flushed = processor.flush(now: 10)
        #expect(flushed.count == 1)
        let message = try #require(flushed.first)
        #expect(message.topic == "gateway/errors")
        #expect(message.number("count") == 2)
        #expect(message.number("firstDate") == 1)
        #expect(message.number("date") == 2)
        #expect(message.string("topic") == "wearables/w1/gyro")
    }

    @Test("counts errors beyond maxErrorKeys into an overflow report on gateway/errors")
    func overflow() throws {
        var processor = FrameProcessor(configuration: .init(errorReportInterval: 10, maxErrorKeys: 1))
        #expect(processor.process(.json("wearables/w1/motion", "[1]", at: 0)).messages.map(\.topic) == ["gateway/w1/errors"])
        let overflowMessages = processor.process(.json("wearables/w2/motion", "[1]", at: 1)).messages
        let overflow = try #require(overflowMessages.first)
        #expect(overflow.topic == "gateway/errors")
        #expect(overflow.string("topic") == "wearables/w2/motion")
        #expect(overflow.string("code") == "invalidPayload")
        #expect(overflow.payloadString.contains(#""overflow":true"#))
        #expect(processor.process(.json("wearables/w3/motion", "[1]", at: 2)).messages.isEmpty)
        let flushed = processor.flush(now: 11)
        #expect(flushed.count == 1)
        #expect(flushed[0].string("topic") == "wearables/w3/motion")
        #expect(flushed[0].number("count") == 1)
    }

    // MARK: Configuration

    @Test("uses the configured roots")
    func customRoots() {
        let scheme = TopicScheme(inboundRoot: "acme/wearables", outboundRoot: "acme/gateway")
        var processor = FrameProcessor(configuration: .init(scheme: scheme))
        let status = processor.process(.json("acme/wearables/w1/status", #"{"state":"online"}"#))
        #expect(status.messages.map(\.topic) == ["acme/gateway/w1/connection"])
        let bad = processor.process(.json("acme/wearables/w1/motion", "[1]"))
        #expect(bad.messages.map(\.topic) == ["acme/gateway/w1/errors"])
        let unknown = processor.process(.json("acme/wearables/w1/gyro", "{}"))
        #expect(unknown.messages.map(\.topic) == ["acme/gateway/errors"])
        #expect(processor.process(.json("wearables/w1/status", "{}")).outcome == .rejected(.invalidTopic, nil))
    }
}

@Suite struct FrameProcessorConfigurationTests {
    @Test("the defaults are usable and match the brief")
    func defaults() {
        let configuration = FrameProcessor.Configuration()
        #expect(configuration.configurationProblem == nil)
        #expect(configuration.validationLimits == ValidationLimits())
        #expect(configuration.maxTrackedSequences == 400_000)
        #expect(configuration.scheme == TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway"))
        #expect(configuration.maxPayloadBytes == 1_048_576)
        #expect(configuration.errorReportInterval == 10)
        #expect(configuration.maxErrorKeys == 10_000)
    }

    @Test("names the setting that is wrong", arguments: [
        (FrameProcessor.Configuration(scheme: TopicScheme(inboundRoot: "gateway")), "inbound root 'gateway' and outbound root 'gateway' overlap; the gateway would receive its own messages"),
        (.init(maxPayloadBytes: 0), "pipeline.maxPayloadBytes must be at least 1, got 0"),
        (.init(errorReportInterval: 0), "the error report interval must be a positive number of seconds, got 0.0"),
        (.init(errorReportInterval: .nan), "the error report interval must be a positive number of seconds, got nan"),
        (.init(maxErrorKeys: 0), "the error key bound must be at least 1, got 0"),
        (.init(maxTrackedDevices: -1), "the tracked device bound must not be negative, got -1"),
        (.init(maxTrackedSequences: -1), "the tracked sequence bound must not be negative, got -1"),
    ])
    func problems(_ configuration: FrameProcessor.Configuration, _ problem: String) {
        #expect(configuration.configurationProblem == problem)
    }
}

@Suite("Frame processor: binary frames")
struct FrameProcessorBinaryTests {
    @Test("a protobuf high-rate frame is decoded and accepted like its JSON twin")
    func protobufFrame() throws {
        let json = try Fixture.json(.batchedDeviceMotion)
        let model = try FrameDecoder.decodeJSON(json, stream: .batchedDeviceMotion).get()
        let binary = try #require(ProtobufFrameEncoder.encode(model))
        var processor = FrameProcessor()
        let result = processor.process(
            InboundFrame(topic: "wearables/w1/batched/device-motion", payload: binary, contentType: "application/x-protobuf", receivedAt: 1_000))
        #expect(result.outcome == .accepted(.batchedDeviceMotion))
        #expect(result.messages.isEmpty)
        #expect(result.frame?.stream == .batchedDeviceMotion)
    }

    @Test("a protobuf frame on a JSON-only stream is an invalid payload")
    func protobufOnLowRateStream() {
        var processor = FrameProcessor()
        let result = processor.process(
            InboundFrame(topic: "wearables/w1/altimeter", payload: [0x0a, 0x00], contentType: "application/x-protobuf", receivedAt: 1_000))
        #expect(result.outcome == .rejected(.invalidPayload, .altimeter))
        #expect(result.problem?.reason == .unsupportedEncoding)
    }
}
