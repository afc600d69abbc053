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
            switch key {
            case "eventId":
                guard let value = scanner.string() else { return }
                eventId = value
            case "date":
                guard let value = scanner.number() else { return }
                date = value
            default:
                guard scanner.skipValue() else { return }
            }
            scanner.skipSpace()
            guard scanner.take(UInt8(ascii: ",")) else { return }
        }
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

        /// A string; escapes other than `\"` and `\\` are kept as written (ids and keys have none).
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var text: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return nil }
                    index += 1
                    if escaped != UInt8(ascii: "\"") && escaped != UInt8(ascii: "\\") { text.append(byte) }
                    text.append(escaped)
                default: text.append(byte)
                }
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
