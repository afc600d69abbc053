import Foundation
import Testing

@testable import TelemetryCore

/// Parses JSON with Foundation, independently of the code under test.
private func parsed(_ bytes: [UInt8]) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
}

@Suite struct JSONWriterTests {
    private static let awkward = "quote\" backslash\\ slash/ nl\n cr\r tab\t bell\u{7} nul\u{0} us\u{1F} del\u{7F} \u{E9} 🙂 \u{2028}"

    @Test("escapes strings exactly and a JSON parser reads them back unchanged")
    func escaping() {
        var writer = JSONWriter()
        writer.object { $0.field("s", Self.awkward) }
        let expected = "{\"s\":\"quote\\\" backslash\\\\ slash/ nl\\n cr\\r tab\\t bell\\u0007 nul\\u0000 us\\u001f del\u{7F} \u{E9} 🙂 \u{2028}\"}"
        #expect(Array(writer.string.unicodeScalars) == Array(expected.unicodeScalars))
        #expect(parsed(writer.bytes)?["s"] as? String == Self.awkward)
    }

    @Test("escapes keys too")
    func escapedKeys() {
        var writer = JSONWriter()
        writer.object { $0.field("a\"b\n", 1) }
        #expect(writer.string == #"{"a\"b\n":1}"#)
        #expect((parsed(writer.bytes)?["a\"b\n"] as? NSNumber)?.doubleValue == 1)
    }

    @Test("writes NaN and infinities as null and other numbers exactly")
    func numbers() {
        var writer = JSONWriter()
        writer.object {
            $0.field("nan", Double.nan)
            $0.field("inf", Double.infinity)
            $0.field("ninf", -Double.infinity)
            $0.field("half", 1.5)
            $0.field("integral", 3.0)
            $0.field("negative", -0.25)
            $0.field("epoch", 1_700_000_000.125)
            $0.field("big", 1e20)
            $0.field("small", 1e-7)
            $0.field("int", -42)
            $0.field("uint", UInt64.max)
        }
        #expect(writer.string == #"{"nan":null,"inf":null,"ninf":null,"half":1.5,"integral":3,"negative":-0.25,"epoch":1700000000.125,"big":1e+20,"small":1e-07,"int":-42,"uint":18446744073709551615}"#)
        let object = parsed(writer.bytes)
        // null is not a number: a reader sees the field but with another type.
        #expect(object?["nan"] is NSNull)
        #expect((object?["small"] as? NSNumber)?.doubleValue == 1e-7)
        #expect((object?["epoch"] as? NSNumber)?.doubleValue == 1_700_000_000.125)
        #expect((object?["big"] as? NSNumber)?.doubleValue == 1e20)
    }

    @Test("separates nested containers and skips nil optionals")
    func containers() {
        var writer = JSONWriter()
        writer.object {
            $0.field("a", array: { array in
                array.value(1)
                array.value("two")
                array.object { $0.field("b", true) }
                array.null()
                array.array { _ in }
            })
            $0.field("missing", nil as String?)
            $0.field("c", object: { _ in })
            $0.field("n", nil as Int?)
            $0.field("d", nil as Double?)
            $0.field("e", 2 as Int?)
            $0.key("raw")
            $0.raw(Array(#"{"x":[1]}"#.utf8))
            $0.field("f", false)
        }
        #expect(writer.string == #"{"a":[1,"two",{"b":true},null,[]],"c":{},"e":2,"raw":{"x":[1]},"f":false}"#)
        #expect(parsed(writer.bytes) != nil)
    }

    @Test("writes top-level arrays")
    func topLevelArray() {
        var writer = JSONWriter()
        writer.array { $0.value(1.0); $0.value(2) }
        #expect(writer.string == "[1,2]")
        #expect((try? JSONSerialization.jsonObject(with: Data(writer.bytes))) is [Any])
    }
}
