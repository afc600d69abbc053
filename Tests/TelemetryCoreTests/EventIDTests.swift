import Testing

@testable import TelemetryCore

@Suite struct EventIDTests {
    // Expected ids computed independently with Python: FNV-1a 64 over the parts joined by 0x1F, "%016x".
    @Test("gives fixed ids", arguments: [
        (["a"], "af63dc4c8601ec8c"),
        (["foobar"], "85944171f73967e8"),
        ([""], "cbf29ce484222325"),
        (["", ""], "af63d24c8601db8e"),
        (["ab", "c"], "fd86a083ef3eee44"),
        (["a", "bc"], "e8bd15823051e636"),
        (["w\u{E4}tch"], "e9146662316bb3f4"),
        (["watch-1", "connection", "connected", "1700000000.0"], "0bcf6dbe801e4772"),
    ])
    func fixedIDs(_ parts: [String], _ expected: String) {
        #expect(EventID.make(parts: parts) == expected)
    }

    @Test("variadic and array forms agree; separators keep part boundaries")
    func forms() {
        #expect(EventID.make("watch-1", "connection", "connected", "1700000000.0") == "0bcf6dbe801e4772")
        #expect(EventID.make("ab", "c") != EventID.make("a", "bc"))
        #expect(EventID.make() == "cbf29ce484222325")
    }

    @Test("is 16 lowercase hex digits, zero-padded")
    func format() {
        for index in 0..<1_000 {
            let id = EventID.make("device", String(index))
            #expect(id.utf8.count == 16)
            #expect(id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        }
        #expect(EventID.hex(0) == "0000000000000000")
        #expect(EventID.hex(0xABC) == "0000000000000abc")
        #expect(EventID.hex(.max) == "ffffffffffffffff")
    }
}
