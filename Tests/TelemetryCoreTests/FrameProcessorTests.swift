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
        return OutboundMessage(topic: "gateway/\(id)/errors", payload: writer.bytes, qos: 1, retain: false)
    }

    // MARK: Accepting

    @Test("accepts a JSON object on a contract stream without publishing anything")
    func accepts() {
        var processor = FrameProcessor()
        let result = processor.process(.json("wearables/w1/motion", #"{"samples":[]}"#))
        #expect(result == FrameResult(outcome: .accepted(.motion), messages: []))
        #expect(processor.nextDeadline() == nil)
    }

    // MARK: Size, content type, JSON

    @Test("rejects a payload over the limit and accepts one at it")
    func oversize() {
        var processor = FrameProcessor(configuration: .init(maxPayloadBytes: 16))
        let atLimit = #"{"a":"12345678"}"#
        #expect(atLimit.utf8.count == 16)
        #expect(processor.process(.json("wearables/w1/motion", atLimit)).outcome == .accepted(.motion))

        let result = processor.process(.json("wearables/w1/motion", #"{"a":"123456789"}"#))
        #expect(result.outcome == .rejected(.invalidPayload, .motion))
        let expected = Self.deviceError("w1", .invalidPayload, .motion, "payload has 17 bytes; the limit is 16 bytes (pipeline.maxPayloadBytes)")
        #expect(result.messages == [expected])
        #expect(result.messages.first?.payloadString.contains(#""cmError":107"#) == true)
    }

    @Test("accepts JSON content types", arguments: [
        nil, "application/json", "application/json; charset=utf-8", "Application/JSON;charset=\"UTF-8\"", " application/json ",
    ] as [String?])
    func jsonContentTypes(_ contentType: String?) {
        var processor = FrameProcessor()
        #expect(processor.process(.json("wearables/w1/motion", "{}", contentType: contentType)).outcome == .accepted(.motion))
    }

    @Test("rejects other content types", arguments: [
        "text/plain", "application/x-protobuf", "", "application/jsonx", "application/json; charset=latin1", "application/json; foo=bar",
        "application/json;", "application/json+fake",
    ])
    func otherContentTypes(_ contentType: String) {
        var processor = FrameProcessor()
        let result = processor.process(.json("wearables/w1/motion", "{}", contentType: contentType))
        #expect(result.outcome == .rejected(.invalidPayload, .motion))
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
        let message = try #require(simdjsonMessage ?? JSONValidator.objectProblem(Array(payload.utf8)))
        #expect(result.messages == [Self.deviceError("w1", .invalidPayload, .altimeter, "payload is not a JSON object: \(message)")])
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
                qos: 1,
                retain: true
            )
        ])
        #expect(processor.connectionState(of: DeviceID("watch-1")!) == .connected)

        let again = processor.process(.json("wearables/watch-1/status", #"{"state":"online","date":1700000050}"#, at: 1_700_000_051))
        #expect(again == FrameResult(outcome: .accepted(.status), messages: []))

        let offline = processor.process(.json("wearables/watch-1/status", #"{"state":"offline","date":1700000100.5}"#, at: 1_700_000_101))
        let eventID = EventID.make("watch-1", "connection", "disconnected", "1700000100.5")
        #expect(offline.messages.map(\.payloadString) == [
            #"{"deviceId":"watch-1","state":"disconnected","reason":"offline","date":1700000100.5,"eventId":"\#(eventID)"}"#
        ])
        #expect(offline.messages.first?.retain == true)
        #expect(processor.connectionState(of: DeviceID("watch-1")!) == .disconnected)
    }

    @Test("uses the arrival time when the status has no usable date", arguments: [
        #"{"state":"offline"}"#, #"{"state":"offline","date":"yesterday"}"#, #"{"state":"offline","date":null}"#,
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

    @Test("rejects a status with a missing or invalid state and keeps presence", arguments: [
        (#"{"date":1}"#, "status has no field 'state'; expected 'online' or 'offline'"),
        (#"{"state":1}"#, "status field 'state' is not a string; expected 'online' or 'offline'"),
        (#"{"state":null}"#, "status field 'state' is not a string; expected 'online' or 'offline'"),
        (#"{"state":"away"}"#, "status field 'state' is 'away'; expected 'online' or 'offline'"),
        (#"{"state":"Online"}"#, "status field 'state' is 'Online'; expected 'online' or 'offline'"),
        (#"{"status":{"state":"online"}}"#, "status has no field 'state'; expected 'online' or 'offline'"),
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
            qos: 1,
            retain: false
        )
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
    ])
    func problems(_ configuration: FrameProcessor.Configuration, _ problem: String) {
        #expect(configuration.configurationProblem == problem)
    }
}
