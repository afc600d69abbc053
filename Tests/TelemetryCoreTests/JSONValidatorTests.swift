import Testing

@testable import TelemetryCore

@Suite struct JSONValidatorTests {
    @Test("accepts well-formed objects", arguments: [#"{}"#, #"  {"a":1}  "#, #"{"a":{"b":[1,2,{"c":null}]},"d":"\u00e9"}"#, "{\"é\":\"🙂\"}"])
    func acceptsObjects(_ json: String) {
        #expect(JSONValidator.objectProblem(Array(json.utf8)) == nil)
    }

    @Test("explains what is wrong", arguments: [
        ("", "empty payload"),
        ("[1,2]", "top-level JSON value is not an object"),
        ("null", "top-level JSON value is not an object"),
        ("\"text\"", "top-level JSON value is not an object"),
        ("42", "top-level JSON value is not an object"),
    ])
    func explains(_ json: String, _ problem: String) {
        #expect(JSONValidator.objectProblem(Array(json.utf8)) == problem)
    }

    @Test("rejects malformed JSON with simdjson's message", arguments: [
        [UInt8]("{".utf8), Array(#"{"a":1} x"#.utf8), Array(#"{"a":}"#.utf8), Array(#"{'a':1}"#.utf8), Array(#"{"a":NaN}"#.utf8),
        [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D],  // {"a":"\xFF"}: invalid UTF-8
    ])
    func rejectsMalformed(_ bytes: [UInt8]) throws {
        let problem = try #require(JSONValidator.objectProblem(bytes))
        #expect(!problem.isEmpty)
        #expect(problem != "top-level JSON value is not an object")
    }

    @Test("reads top-level string and number fields")
    func fields() {
        let json = Array(#"{"state":"online","date":1700000000.5,"count":3,"flag":true,"dup":"first","dup":"second","nested":{"state":"x"}}"#.utf8)
        #expect(JSONField.string("state", in: json) == .value("online"))
        #expect(JSONField.double("date", in: json) == .value(1_700_000_000.5))
        #expect(JSONField.double("count", in: json) == .value(3))
        #expect(JSONField.string("date", in: json) == .wrongType)
        #expect(JSONField.double("state", in: json) == .wrongType)
        #expect(JSONField.double("flag", in: json) == .wrongType)
        #expect(JSONField.string("absent", in: json) == .missing)
        #expect(JSONField.string("dup", in: json) == .value("first"))
        #expect(JSONField.string("x", in: Array("[1]".utf8)) == .notObject)
        #expect(JSONField.double("x", in: []) == .notObject)
    }

    @Test("cuts long strings to the buffer")
    func truncates() {
        let json = Array("{\"s\":\"\(String(repeating: "a", count: 300))\"}".utf8)
        #expect(JSONField.string("s", in: json, maxBytes: 8) == .value("aaaaaaaa"))
        #expect(JSONField.string("s", in: json) == .value(String(repeating: "a", count: 256)))
    }
}
