/// A device id as it appears in the topic level below the inbound root: 1–64 characters of
/// ASCII `A-Z a-z 0-9 . _ -`.
///
/// The syntax keeps ids safe as MQTT topic levels (no `+`, `#`, `/` or NUL) and unambiguous
/// (ASCII only, so byte equality and Unicode equality agree).
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    /// The most characters an id may have.
    public static let maxLength = 64

    /// The id text; always valid.
    public let rawValue: String

    /// Creates an id when `text` has valid syntax.
    /// - Parameter text: the candidate id, e.g. the device level of a topic.
    /// - Returns: nil when `text` is empty, longer than ``maxLength`` or has a character outside `[A-Za-z0-9._-]`;
    ///   ``validationProblem(_:)`` says which.
    public init?(_ text: some StringProtocol) {
        guard Self.isValid(text.utf8) else { return nil }
        rawValue = String(text)
    }

    /// An id from bytes a parser has already checked with ``isAllowed(_:)`` and the length limit.
    init(validated bytes: UnsafeBufferPointer<UInt8>) {
        assert(Self.isValid(bytes))
        rawValue = String(decoding: bytes, as: UTF8.self)
    }

    /// The id text.
    public var description: String { rawValue }

    /// Says why `text` is not a valid id, for error reports.
    ///
    /// Checks, in order: emptiness, length (in characters), then the first disallowed character
    /// with its 1-based character position; a character that is not printable ASCII is also
    /// given as Unicode scalar values (`U+0000`).
    /// - Parameter text: the candidate id.
    /// - Returns: nil when `text` is a valid id, else a human-readable reason.
    public static func validationProblem(_ text: some StringProtocol) -> String? {
        if isValid(text.utf8) { return nil }
        if text.isEmpty { return "device id is empty" }
        let length = text.count
        if length > maxLength {
            return "device id has \(length) characters; at most \(maxLength) are allowed"
        }
        for (offset, character) in text.enumerated() {
            let allowed = character.utf8.count == 1 && isAllowed(character.utf8.first!)
            if !allowed {
                return "device id contains \(describe(character)) at position \(offset + 1); only A-Z a-z 0-9 . _ - are allowed"
            }
        }
        // Unreachable when the fast check and the slow scan agree; kept so the function never lies.
        return "device id is invalid"
    }

    /// The fast check, over UTF-8 bytes without allocating.
    static func isValid(_ utf8: some Sequence<UInt8>) -> Bool {
        var count = 0
        for byte in utf8 {
            guard isAllowed(byte) else { return false }
            count += 1
            if count > maxLength { return false }
        }
        return count > 0
    }

    @inline(__always)
    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// Quotes a printable character (adding its scalars when it is not ASCII) and gives only the
    /// scalars of anything else, so NUL or a format character stays visible in a report.
    private static func describe(_ character: Character) -> String {
        let scalars = character.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        .joined(separator: " ")
        let printable = character.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
                false
            default:
                true
            }
        }
        if character.isASCII && printable { return "'\(character)'" }
        return printable ? "'\(character)' (\(scalars))" : scalars
    }
}

/// Encoded as its text; decoding checks the syntax again (a stored snapshot is input too).
extension DeviceID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = DeviceID(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: DeviceID.validationProblem(text) ?? "invalid device id")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
