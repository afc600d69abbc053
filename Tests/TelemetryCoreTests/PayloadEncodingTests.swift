import Testing
import TelemetryCore

@Suite struct PayloadEncodingTests {
    @Test("selects the encoding from the MQTT 5 content type", arguments: [
        (nil, PayloadEncoding.json), ("application/json", .json), ("application/json; charset=utf-8", .json),
        ("Application/JSON;charset=\"UTF-8\"", .json), (" application/json ", .json), ("application/x-protobuf", .protobuf),
        ("Application/X-Protobuf", .protobuf), (" application/x-protobuf\t", .protobuf),
    ] as [(String?, PayloadEncoding)])
    func supported(_ contentType: String?, _ encoding: PayloadEncoding) {
        #expect(PayloadEncoding(contentType: contentType) == encoding)
    }

    @Test("rejects anything else", arguments: [
        "text/plain", "", "application/jsonx", "application/json; charset=latin1", "application/json; foo=bar", "application/json;",
        "application/json+fake", "application/x-protobuf; charset=utf-8", "application/protobuf",
    ])
    func unsupported(_ contentType: String) {
        #expect(PayloadEncoding(contentType: contentType) == nil)
    }
}
