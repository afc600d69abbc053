import Foundation
import MQTTTransport
import Testing
import WearableGatewayTesting

@Suite("Capture format")
struct SessionCaptureTests {
    static let header = SessionCapture.Header(broker: "mqtt://127.0.0.1:1883", filter: "wearables/#", startedAt: 1_763_800_000.125)

    static func file() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(UUID().uuidString).jsonl")
    }

    @Test("frames with every property and binary payloads survive a write and a read exactly")
    func roundTrip() throws {
        let properties = MQTTProperties(
            contentType: "application/x-protobuf", messageExpiryInterval: 30, responseTopic: "apps/a/replies", correlationData: [0, 255, 7],
            userProperties: [.init(name: "k", value: "v1"), .init(name: "k", value: "v2")])
        let capture = SessionCapture(
            header: Self.header,
            frames: [
                CapturedFrame(time: 0.001, topic: "wearables/w-1/hello", qos: .atLeastOnce, retain: true, stored: true, payload: Array(#"{"model":"x"}"#.utf8)),
                CapturedFrame(time: 1.5, topic: "wearables/w-1/batched/accelerometer", qos: .atMostOnce, retain: false, stored: false, payload: [0, 1, 2, 254, 255], properties: properties),
            ],
            trailer: .init(frames: 2, duration: 2.25))
        let url = Self.file()
        defer { try? FileManager.default.removeItem(at: url) }
        try capture.write(to: url)
        #expect(try SessionCapture.read(from: url) == capture)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix(#"{"broker":"mqtt://127.0.0.1:1883","filter":"wearables/#","format":"wearable-gateway-capture""#))
        #expect(lines[2].contains(#""payload":"AAEC/v8=""#) && lines[2].contains(#""userProperties":[["k","v1"],["k","v2"]]"#), "\(lines[2])")
        #expect(lines[3] == #"{"end":{"duration":2.25,"frames":2}}"#)
    }

    @Test("a file without trailer (the recorder was killed) reads, marked incomplete")
    func withoutTrailer() throws {
        let url = Self.file()
        defer { try? FileManager.default.removeItem(at: url) }
        let frame = CapturedFrame(time: 0.5, topic: "wearables/w-1/status", qos: .atLeastOnce, retain: true, stored: false, payload: Array("{}".utf8))
        try SessionCapture(header: Self.header, frames: [frame]).write(to: url)
        let capture = try SessionCapture.read(from: url)
        #expect(capture.trailer == nil && capture.frames == [frame])
    }

    @Test(
        "files that break the format are refused with the line",
        arguments: [
            (#"{"format":"wearable-gateway-capture","version":2,"broker":"b","filter":"w/+","startedAt":0}"#, 1, "version 2 is not supported"),
            (#"{"format":"pcap","version":1,"broker":"b","filter":"w/+","startedAt":0}"#, 1, "format is 'pcap'"),
            (#"{"format":"wearable-gateway-capture","version":1,"broker":"b","filter":"w/+","startedAt":0}"# + "\n" + #"{"t":1,"topic":"a","qos":3,"payload":""}"#, 2, "qos must be 0, 1 or 2"),
            (#"{"format":"wearable-gateway-capture","version":1,"broker":"b","filter":"w/+","startedAt":0}"# + "\n" + #"{"end":{"frames":1,"duration":1}}"#, 2, "the trailer counts 1 frames but the file has 0"),
        ])
    func refused(text: String, line: Int, reason: String) throws {
        let url = Self.file()
        defer { try? FileManager.default.removeItem(at: url) }
        try text.write(to: url, atomically: true, encoding: .utf8)
        let error = try #require(throws: CaptureFormatError.self) { try SessionCapture.read(from: url) }
        #expect(error.line == line)
        #expect(error.reason.contains(reason), "\(error)")
    }
}
