/// Deterministic ids for derived events, so downstream consumers can deduplicate.
///
/// Processing the same input again gives the same id, in any run or process, because the id is
/// a fixed hash of the parts (64-bit FNV-1a), never `Hasher` or a random value.
public enum EventID {
    /// The byte placed between parts (ASCII unit separator), so `("ab","c")` and `("a","bc")` differ.
    public static let separator: UInt8 = 0x1F

    /// Makes an event id from the parts it derives from.
    ///
    /// The id is the 64-bit FNV-1a hash of the parts' UTF-8 bytes joined by ``separator``, written
    /// as 16 lowercase hex digits. Give numbers in a fixed textual form (e.g. `String(describing:)`
    /// of the `Double`) so the same input always gives the same text.
    /// - Parameter parts: what identifies the event, e.g. device id, kind, input date.
    /// - Returns: 16 lowercase hex characters.
    public static func make(_ parts: String...) -> String {
        make(parts: parts)
    }

    /// Makes an event id from an array of parts; see ``make(_:)``.
    /// - Parameter parts: what identifies the event.
    /// - Returns: 16 lowercase hex characters.
    public static func make(parts: [String]) -> String {
        var hasher = FNV1a64()
        for (index, part) in parts.enumerated() {
            if index > 0 { hasher.combine(separator) }
            hasher.combine(part.utf8)
        }
        return hex(hasher.value)
    }

    /// Writes `value` as 16 lowercase hex digits, zero-padded.
    static func hex(_ value: UInt64) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for position in 0..<16 {
                let nibble = Int((value >> UInt64(60 - 4 * position)) & 0xF)
                buffer[position] = digits.utf8Start[nibble]
            }
            return 16
        }
    }
}
