import Testing

@testable import TelemetryCore

@Suite("W3C trace context carried from a frame to its events")
struct TraceParentTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test("valid values are taken, malformed ones dropped", arguments: [
        (valid, true),
        ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later-fields", true),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", false),  // version 00 has no more fields
        ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false),
        ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", false),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false),
        ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false),  // upper case
        ("00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", false),
        ("", false),
    ])
    func validation(_ text: String, _ accepted: Bool) {
        #expect((TraceParent(text) != nil) == accepted)
    }

    @Test("every message a frame produces carries its traceparent, an error report too; a frame without one adds nothing")
    func carried() throws {
        var processor = FrameProcessor(configuration: .init())
        var online = InboundFrame.json("wearables/watch-1/status", #"{"state":"online","date":1700000000}"#, at: 1_700_000_003)
        online.traceParent = TraceParent(Self.valid)
        let accepted = processor.process(online)
        #expect(!accepted.messages.isEmpty)
        for message in accepted.messages {
            #expect(message.userProperties.filter { $0.name == "traceparent" }.map(\.value) == [Self.valid], "\(message.topic)")
        }
        var garbage = InboundFrame.json("wearables/watch-1/status", "not json", at: 1_700_000_004)
        garbage.traceParent = TraceParent(Self.valid)
        let rejected = processor.process(garbage)
        let report = try #require(rejected.messages.first { $0.topic.hasSuffix("/errors") })
        #expect(report.userProperties.contains { $0.name == "traceparent" && $0.value == Self.valid })
        let untraced = processor.process(.json("wearables/watch-1/status", #"{"state":"offline","date":1700000010}"#, at: 1_700_000_011))
        #expect(!untraced.messages.isEmpty)
        #expect(untraced.messages.allSatisfy { !$0.userProperties.contains { $0.name == "traceparent" } })
    }
}
