/// The two top-level members of a derived event's JSON the event history keys rows by:
/// `eventId` and `date` (docs/wire-contract.md: every derived event carries an id and the time of
/// its input). Read by a small scanner over the bytes the gateway itself wrote, on the history
/// writer's task, not the frame path; nested members are skipped, never matched.
struct HistoryEventFields: Equatable {
    /// The top-level `eventId` string, if any.
    var eventId: String?
    /// The top-level `date` number (Unix epoch seconds), if any.
    var date: Double?

    /// The given members (tests compare scans with it).
    init(eventId: String? = nil, date: Double? = nil) {
        self.eventId = eventId
        self.date = date
    }

    /// Scans `payload`, a JSON object; a payload that is not one yields neither member.
    init(scanning payload: [UInt8]) {
        var scanner = Scanner(bytes: payload)
        scanner.skipSpace()
        guard scanner.take(UInt8(ascii: "{")) else { return }
        while true {
            scanner.skipSpace()
            guard let key = scanner.string() else { return }
            scanner.skipSpace()
            guard scanner.take(UInt8(ascii: ":")) else { return }
            scanner.skipSpace()
            if payload[key].elementsEqual(Self.eventIdKey) {
                guard let value = scanner.string() else { return }
                eventId = Self.text(payload[value])
            } else if payload[key].elementsEqual(Self.dateKey) {
                guard let value = scanner.number() else { return }
                date = value
            } else {
                guard scanner.skipValue() else { return }
            }
            scanner.skipSpace()
            guard scanner.take(UInt8(ascii: ",")) else { return }
        }
    }

    private static let eventIdKey = Array("eventId".utf8)
    private static let dateKey = Array("date".utf8)

    /// A string's text with its `\"` and `\\` escapes undone (ids have none; the rest is kept).
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
        var text: [UInt8] = []
        var escaped = false
        for byte in bytes {
            if !escaped && byte == UInt8(ascii: "\\") {
                escaped = true
                continue
            }
            if escaped && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") { text.append(UInt8(ascii: "\\")) }
            text.append(byte)
            escaped = false
        }
        return String(decoding: text, as: UTF8.self)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// A string's bytes between its quotes, as written (escapes are skipped over, not undone).
        mutating func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while let byte = current {
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                index += byte == UInt8(ascii: "\\") ? 2 : 1
            }
            return nil
        }

        mutating func number() -> Double? {
            let start = index
            while let byte = current, byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
                || byte == UInt8(ascii: "E") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            {
                index += 1
            }
            guard index > start else { return nil }
            return Double(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        /// Skips one value of any kind: strings whole, objects and arrays to their closing bracket.
        mutating func skipValue() -> Bool {
            guard let first = current else { return false }
            if first == UInt8(ascii: "\"") { return string() != nil }
            guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
                // A number, true, false or null: up to the next delimiter.
                while let byte = current, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), byte != UInt8(ascii: "]") { index += 1 }
                return true
            }
            var depth = 0
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    guard string() != nil else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default: break
                }
                index += 1
            }
            return false
        }
    }
}
