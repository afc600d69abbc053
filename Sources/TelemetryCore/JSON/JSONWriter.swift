/// Appends compact JSON to a byte buffer without Foundation.
///
/// Outbound events and simulator frames are written with it on hot paths, so it avoids
/// `JSONEncoder` and intermediate dictionaries: callers write keys and values in order.
/// Non-finite doubles are written as `null`, because JSON has no NaN or infinity.
///
/// ```swift
/// var writer = JSONWriter()
/// writer.object {
///     $0.field("state", "online")
///     $0.field("count", 3)
/// }
/// let bytes = writer.bytes   // {"state":"online","count":3}
/// ```
public struct JSONWriter: Sendable {
    /// The JSON written so far, UTF-8.
    public private(set) var bytes: [UInt8]
    /// Whether the next member or element needs a separating comma.
    private var needsComma = false

    /// Creates an empty writer.
    /// - Parameter capacity: bytes to reserve up front.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The JSON written so far as a `String`.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Containers

    /// Writes an object whose members `body` writes.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes an array whose elements `body` writes.
    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes a member key; the next value written belongs to it.
    public mutating func key(_ name: String) {
        separate()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    /// Writes a string value.
    public mutating func value(_ string: String) {
        separate()
        appendString(string)
        needsComma = true
    }

    /// Writes a number; NaN and infinities become `null`.
    public mutating func value(_ number: Double) {
        separate()
        if number.isFinite {
            if number == number.rounded(.towardZero), abs(number) < 1e15 {
                // Integral values print without a trailing ".0", as JSON producers usually do.
                bytes.append(contentsOf: String(Int64(number)).utf8)
            } else {
                bytes.append(contentsOf: number.description.utf8)
            }
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        needsComma = true
    }

    /// Writes an integer.
    public mutating func value(_ number: Int) {
        separate()
        bytes.append(contentsOf: String(number).utf8)
        needsComma = true
    }

    /// Writes an unsigned integer.
    public mutating func value(_ number: UInt64) {
        separate()
        bytes.append(contentsOf: String(number).utf8)
        needsComma = true
    }

    /// Writes `true` or `false`.
    public mutating func value(_ flag: Bool) {
        separate()
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        needsComma = true
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes already-encoded JSON verbatim (the caller guarantees it is valid).
    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    // MARK: Members

    /// Writes `"name": string`.
    public mutating func field(_ name: String, _ string: String) {
        key(name)
        value(string)
    }

    /// Writes `"name": string` only when `string` is not nil.
    public mutating func field(_ name: String, _ string: String?) {
        if let string { field(name, string) }
    }

    /// Writes `"name": number` (NaN and infinities as `null`).
    public mutating func field(_ name: String, _ number: Double) {
        key(name)
        value(number)
    }

    /// Writes `"name": number` only when `number` is not nil.
    public mutating func field(_ name: String, _ number: Double?) {
        if let number { field(name, number) }
    }

    /// Writes `"name": integer`.
    public mutating func field(_ name: String, _ number: Int) {
        key(name)
        value(number)
    }

    /// Writes `"name": integer` only when `number` is not nil.
    public mutating func field(_ name: String, _ number: Int?) {
        if let number { field(name, number) }
    }

    /// Writes `"name": unsigned integer`.
    public mutating func field(_ name: String, _ number: UInt64) {
        key(name)
        value(number)
    }

    /// Writes `"name": true|false`.
    public mutating func field(_ name: String, _ flag: Bool) {
        key(name)
        value(flag)
    }

    /// Writes `"name": { ... }`.
    public mutating func field(_ name: String, object body: (inout JSONWriter) -> Void) {
        key(name)
        object(body)
    }

    /// Writes `"name": [ ... ]`.
    public mutating func field(_ name: String, array body: (inout JSONWriter) -> Void) {
        key(name)
        array(body)
    }

    // MARK: Private

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Keys and most values need no escaping: copy them in one go.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: string.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
