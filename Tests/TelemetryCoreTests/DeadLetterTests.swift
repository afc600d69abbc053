import Testing

@testable import TelemetryCore

/// Dead letters: rejected frames republished byte for byte, produced by the pure core.
@Suite struct DeadLetterTests {
    private static func processor(maxPerSecond: Int = 10) -> FrameProcessor {
        FrameProcessor(configuration: .init(deadLetters: DeadLetterPolicy(maxPerSecond: maxPerSecond)))
    }

    private static func properties(_ message: OutboundMessage) -> [String: String] {
        Dictionary(message.userProperties.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    private static let garbage: [UInt8] = Array("garbage".utf8) + [0xFF, 0xFE, 0x00] + Array("{not json".utf8)

    @Test("an undecodable payload comes back byte for byte on gateway/{id}/dead-letter with the reasons")
    func garbagePayload() throws {
        var processor = Self.processor()
        let frame = InboundFrame(topic: "wearables/w1/motion", payload: Self.garbage, contentType: "application/json", receivedAt: 1_000)
        let result = processor.process(frame)
        #expect(result.outcome == .rejected(.invalidPayload, .motion))
        #expect(result.deadLetter == .published)
        let letters = result.messages.filter { $0.topic == "gateway/w1/dead-letter" }
        try #require(letters.count == 1)
        let letter = letters[0]
        #expect(letter.payload == Self.garbage)
        #expect(letter.qos == .atLeastOnce && !letter.retain)
        #expect(letter.contentType == "application/json", "the original content type is kept")
        let properties = Self.properties(letter)
        #expect(properties["code"] == "invalidPayload")
        #expect(properties["cmError"] == "107")
        #expect(properties["stream"] == "motion")
        #expect(properties["sourceTopic"] == "wearables/w1/motion")
        #expect(properties["contentType"] == "application/json")
        let errorReport = try #require(result.messages.first { $0.topic == "gateway/w1/errors" })
        #expect(errorReport.payloadString.contains(properties["detail"] ?? "<none>"), "the detail is the error report's")
        #expect(letter.userProperties.map(\.name) == DeadLetter.propertyNames)
    }

    @Test("frames without a valid device id go to gateway/dead-letter; an unknown stream to the device's topic")
    func topicRejections() throws {
        var processor = Self.processor()
        let invalidID = processor.process(.json("wearables/bad id!/motion", "{}"))
        let letter = try #require(invalidID.messages.first { $0.topic == "gateway/dead-letter" })
        #expect(letter.payload == Array("{}".utf8))
        #expect(Self.properties(letter)["code"] == "invalidDeviceId")
        #expect(Self.properties(letter)["stream"] == "")
        #expect(letter.contentType == nil && Self.properties(letter)["contentType"] == nil, "no content type was sent")

        let unknownStream = processor.process(.json("wearables/w2/teleport", "{}"))
        #expect(unknownStream.outcome == .rejected(.unknownStream, nil))
        #expect(unknownStream.messages.contains { $0.topic == "gateway/w2/dead-letter" })
    }

    @Test("the rate limit is per device and second; drops are reported")
    func rateLimit() {
        var processor = Self.processor(maxPerSecond: 2)
        func letter(_ device: String, at date: Double) -> DeadLetterOutcome? {
            processor.process(.json("wearables/\(device)/motion", "x", at: date)).deadLetter
        }
        #expect(letter("w1", at: 1_000.1) == .published)
        #expect(letter("w1", at: 1_000.5) == .published)
        #expect(letter("w1", at: 1_000.9) == .dropped)
        #expect(letter("w2", at: 1_000.9) == .published, "another device has its own budget")
        #expect(letter("w1", at: 1_001.0) == .published, "a new second")
    }

    @Test("off by default: no dead letters, no outcome")
    func offByDefault() {
        var processor = FrameProcessor()
        let result = processor.process(.json("wearables/w1/motion", "x"))
        #expect(result.deadLetter == nil)
        #expect(!result.messages.contains { $0.topic.hasSuffix("dead-letter") })
    }

    @Test("accepted frames produce no dead letter")
    func acceptedFrames() {
        var processor = Self.processor()
        let result = processor.process(.json("wearables/w1/altimeter", #"{"timestamp":1,"relativeAltitude":0,"pressure":100}"#))
        #expect(result.outcome == .accepted(.altimeter))
        #expect(result.deadLetter == nil)
    }

    @Test("the limiter forgets past seconds when its table is full and shares one window beyond")
    func limiterBound() {
        var limiter = DeadLetterLimiter(maxPerSecond: 1, maxKeys: 2)
        let admitted = [("a", 10.0), ("b", 10), ("c", 10), ("d", 10), ("d", 11)].map { limiter.admit($0.0, at: $0.1) }
        // a, b: own windows; c: first of the shared overflow window; d: overflow keys share
        // that window; d a second later: past windows are forgotten to make room.
        #expect(admitted == [true, true, true, false, true])
    }
}
