/// Protobuf wire bytes written by hand, for tests that need layouts no encoder writes
/// (repeated or unpacked columns, merged messages, truncations).
enum ProtobufWireBytes {
    /// A base-128 varint.
    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return bytes + [UInt8(value)]
    }

    /// A double's 8 little-endian bytes (wire type 1).
    static func littleEndian(_ value: Double) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value.bitPattern >> ($0 * 8)) }
    }

    /// A float's 4 little-endian bytes (wire type 5).
    static func littleEndian(_ value: Float) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> ($0 * 8)) }
    }
}
