import Testing

@testable import TelemetryCore

@Suite struct DeviceIDTests {
    @Test("accepts 1–64 characters of A-Z a-z 0-9 . _ -", arguments: [
        "a", "watch-1", "Watch_Ultra.2", "..", "-", "0", String(repeating: "x", count: 64),
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._",
    ])
    func acceptsValidIDs(_ text: String) throws {
        let id = try #require(DeviceID(text))
        #expect(id.rawValue == text)
        #expect(id.description == text)
        #expect(DeviceID.validationProblem(text) == nil)
    }

    @Test("accepts a Substring and keeps only its text")
    func acceptsSubstring() throws {
        let topic = "wearables/watch-7/status"
        let level = topic.split(separator: "/")[1]
        let id = try #require(DeviceID(level))
        #expect(id.rawValue == "watch-7")
        #expect(id == DeviceID("watch-7"))
    }

    @Test("rejects bad ids with a precise reason", arguments: [
        ("", "device id is empty"),
        (String(repeating: "a", count: 65), "device id has 65 characters; at most 64 are allowed"),
        (String(repeating: "a", count: 70), "device id has 70 characters; at most 64 are allowed"),
        ("ab+c", "device id contains '+' at position 3; only A-Z a-z 0-9 . _ - are allowed"),
        ("#", "device id contains '#' at position 1; only A-Z a-z 0-9 . _ - are allowed"),
        ("a/b", "device id contains '/' at position 2; only A-Z a-z 0-9 . _ - are allowed"),
        ("a b", "device id contains ' ' at position 2; only A-Z a-z 0-9 . _ - are allowed"),
        ("w\u{0}", "device id contains U+0000 at position 2; only A-Z a-z 0-9 . _ - are allowed"),
        ("tab\t", "device id contains U+0009 at position 4; only A-Z a-z 0-9 . _ - are allowed"),
        ("w\u{E4}tch", "device id contains '\u{E4}' (U+00E4) at position 2; only A-Z a-z 0-9 . _ - are allowed"),
        ("e\u{301}x", "device id contains 'e\u{301}' (U+0065 U+0301) at position 1; only A-Z a-z 0-9 . _ - are allowed"),
        ("ok\u{200B}", "device id contains U+200B at position 3; only A-Z a-z 0-9 . _ - are allowed"),
        ("hi🙂", "device id contains '🙂' (U+1F642) at position 3; only A-Z a-z 0-9 . _ - are allowed"),
        (String(repeating: "\u{E4}", count: 64), "device id contains '\u{E4}' (U+00E4) at position 1; only A-Z a-z 0-9 . _ - are allowed"),
        (String(repeating: "\u{E4}", count: 65), "device id has 65 characters; at most 64 are allowed"),
    ])
    func rejectsInvalidIDs(_ text: String, _ reason: String) {
        #expect(DeviceID(text) == nil)
        // Compare scalars, not Strings: String == would accept a canonically equivalent but different reason.
        #expect(DeviceID.validationProblem(text).map { Array($0.unicodeScalars) } == Array(reason.unicodeScalars))
    }
}
