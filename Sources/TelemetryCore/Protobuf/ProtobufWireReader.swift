/// A forward reader of protobuf wire format over borrowed bytes, for the hand-written decoders
/// of the high-rate batches.
///
/// Why not SwiftProtobuf's generated `init(serializedBytes:)`: for a 200-sample device-motion
/// batch it allocates a storage object per sample and spends most of its time in generic
/// metadata lookups and exclusivity checks (the relay-ratio profile in docs/performance.md).
/// This reader allocates nothing; the decoders read each column straight into the model
/// arrays. It follows the wire rules SwiftProtobuf applies: field number 0, wire types 6 and 7
/// or a varint longer than 10 bytes is malformed; a field or length running past the end is
/// truncated; unknown fields (groups included), and known fields sent with another wire type,
/// are skipped.
struct ProtobufWireReader {
    /// Why the bytes are not a message.
    enum Failure: Error {
        /// A field or a length runs past the end of the bytes.
        case truncated
        /// An invalid tag, wire type or length.
        case malformed
    }

    /// Protobuf wire types.
    enum WireType: UInt8 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
    }

    private let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    private let end: Int

    /// A reader of `bytes[range]`.
    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    /// The next field's number and wire type, or nil at the end of the message.
    mutating func nextField() throws(Failure) -> Field? {
        guard position < end else { return nil }
        let tag = try varint()
        guard tag >> 3 != 0, tag >> 3 <= 0x1FFF_FFFF, let wireType = WireType(rawValue: UInt8(tag & 7)) else { throw .malformed }
        return (Int(tag >> 3), wireType)
    }

    /// A base-128 varint.
    @inline(__always)
    mutating func varint() throws(Failure) -> UInt64 {
        // One byte is the usual case (every tag and short length of wearable.v1): inlined.
        if position < end, bytes[position] < 0x80 {
            defer { position += 1 }
            return UInt64(bytes[position])
        }
        return try longVarint()
    }

    /// A varint of any length (``varint()`` inlines only the one-byte case).
    private mutating func longVarint() throws(Failure) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw .truncated }
            let byte = bytes[position]
            position += 1
            // The tenth byte's bits above 2⁶³ are dropped, not refused: SwiftProtobuf (and
            // protobuf's own parsers) read such a varint, so this reader does too.
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
            if shift > 63 { throw .malformed }
        }
    }

    /// A little-endian 32-bit float (wire type 5).
    mutating func float() throws(Failure) -> Float {
        guard end - position >= 4 else { throw .truncated }
        defer { position += 4 }
        return Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
    }

    /// A little-endian 64-bit double (wire type 1).
    mutating func double() throws(Failure) -> Double {
        guard end - position >= 8 else { throw .truncated }
        defer { position += 8 }
        return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)))
    }

    /// The byte range of a length-delimited field's body, which the reader then skips.
    mutating func lengthDelimited() throws(Failure) -> Range<Int> {
        let length = try varint()
        guard length <= UInt64(end - position) else { throw .truncated }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    /// The components of a ``floatMessage(count:)``, 0 where absent.
    struct FloatLanes {
        var x: Float = 0
        var y: Float = 0
        var z: Float = 0
        var w: Float = 0
    }

    /// A field's number and wire type, as ``nextField()`` returns them.
    typealias Field = (number: Int, wireType: WireType)

    /// Appends a repeated float field, packed (wire type 2) or one element (wire type 5); any
    /// other wire type is skipped.
    mutating func appendFloats(_ field: Field, to values: inout [Float]) throws(Failure) {
        switch field.wireType {
        case .fixed32:
            values.append(try float())
        case .lengthDelimited:
            let range = try lengthDelimited()
            guard range.count % 4 == 0 else { throw .malformed }
            values.reserveCapacity(values.count + range.count / 4)
            for offset in stride(from: range.lowerBound, to: range.upperBound, by: 4) {
                values.append(Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))))
            }
        default:
            try skip(field.wireType, number: field.number)
        }
    }

    /// Appends a repeated double field, packed (wire type 2) or one element (wire type 1); any
    /// other wire type is skipped.
    mutating func appendDoubles(_ field: Field, to values: inout [Double]) throws(Failure) {
        switch field.wireType {
        case .fixed64:
            values.append(try double())
        case .lengthDelimited:
            let range = try lengthDelimited()
            guard range.count % 8 == 0 else { throw .malformed }
            values.reserveCapacity(values.count + range.count / 8)
            for offset in stride(from: range.lowerBound, to: range.upperBound, by: 8) {
                values.append(Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))))
            }
        default:
            try skip(field.wireType, number: field.number)
        }
    }

    /// A singular float field (wire type 5), or nil when it came with another wire type (skipped).
    mutating func singularFloat(_ field: Field) throws(Failure) -> Float? {
        guard field.wireType == .fixed32 else {
            try skip(field.wireType, number: field.number)
            return nil
        }
        return try float()
    }

    /// A singular double field (wire type 1), or nil when it came with another wire type (skipped).
    mutating func singularDouble(_ field: Field) throws(Failure) -> Double? {
        guard field.wireType == .fixed64 else {
            try skip(field.wireType, number: field.number)
            return nil
        }
        return try double()
    }

    /// A singular varint field (wire type 0), or nil when it came with another wire type (skipped).
    mutating func singularVarint(_ field: Field) throws(Failure) -> UInt64? {
        guard field.wireType == .varint else {
            try skip(field.wireType, number: field.number)
            return nil
        }
        return try varint()
    }

    /// An enum field: a varint read as a 32-bit signed value, as protobuf's int32; nil when it
    /// came with another wire type (skipped).
    mutating func singularEnum(_ field: Field) throws(Failure) -> Int? {
        try singularVarint(field).map { Int(Int32(truncatingIfNeeded: $0)) }
    }

    /// A reader of a nested message (wire type 2), or nil when the field came with another wire
    /// type (skipped).
    mutating func nested(_ field: Field) throws(Failure) -> ProtobufWireReader? {
        guard field.wireType == .lengthDelimited else {
            try skip(field.wireType, number: field.number)
            return nil
        }
        return try nestedMessage()
    }

    /// The body of a nested message whose fields are all float32 (wire type 5) numbered 1 …
    /// `count` (at most 4), each at most once: `Vector3` and `Quaternion`. Components absent
    /// from the body are 0, as protobuf leaves zeros out. Nil, with the reader past the body,
    /// for any other body; throws when the length runs past the end.
    ///
    /// One byte per tag and no per-field dispatch: the fast path reads four such messages per
    /// device-motion sample.
    mutating func floatMessage(count: Int) throws(Failure) -> FloatLanes? {
        let body = try lengthDelimited()
        // Every component present and in field order, as encoders write them unless one is 0:
        // the tags sit at fixed places (5 bytes apart), so the values are read from theirs
        // without the loop below, whose result on such a body is the same.
        if (count == 3 || count == 4) && body.count == 5 * count && hasFloatTagsInOrder(at: body.lowerBound, count: count) {
            return lanes(at: body.lowerBound, count: count)
        }
        var values = FloatLanes()
        var seen = 0
        var offset = body.lowerBound
        while offset < body.upperBound {
            let tag = bytes[offset]
            let number = Int(tag >> 3)
            // A tag of more than one byte has its top bit set: number ≥ 16, declined here.
            guard tag & 7 == 5, number >= 1, number <= count, seen & (1 << number) == 0, body.upperBound - offset >= 5 else {
                return nil
            }
            seen |= 1 << number
            let value = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self)))
            // A switch keeps the lanes in registers (a store to a variable lane in memory, read
            // back whole, stalled on store forwarding; SIMD4's lane setters were slower still).
            switch number {
            case 1: values.x = value
            case 2: values.y = value
            case 3: values.z = value
            default: values.w = value
            }
            offset += 5
        }
        return values
    }

    /// The first five fields of a `DeviceMotion` sample (`timestamp`, `attitude`,
    /// `rotation_rate`, `gravity`, `user_acceleration`) when they come first, in field order,
    /// with every component present: what encoders write unless a value is exactly 0. Their 82
    /// bytes then have their tags and lengths at fixed places, and the values are read from
    /// theirs, the reader moved past them. Nil, the reader unmoved, for anything else: the field
    /// loop reads such a sample, to the same values.
    mutating func deviceMotionHead() -> DeviceMotionHead? {
        let start = position
        // Field 1 (fixed64) at 0; fields 2 (4 floats), 3, 4 and 5 (3 floats each) from 9 on.
        guard end - start >= DeviceMotionHead.size, bytes[start] == 0x09,
            hasFloatMessage(tag: 0x12, at: start + 9, count: 4), hasFloatMessage(tag: 0x1A, at: start + 31, count: 3),
            hasFloatMessage(tag: 0x22, at: start + 48, count: 3), hasFloatMessage(tag: 0x2A, at: start + 65, count: 3)
        else { return nil }
        position = start + DeviceMotionHead.size
        return DeviceMotionHead(
            timestamp: Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 1, as: UInt64.self))),
            attitude: lanes(at: start + 11, count: 4), rotationRate: lanes(at: start + 33, count: 3),
            gravity: lanes(at: start + 50, count: 3), userAcceleration: lanes(at: start + 67, count: 3))
    }

    /// Whether a float message of `count` components sits at `start`, written as encoders write
    /// it: the field's `tag`, the length 5 × `count`, then ``hasFloatTagsInOrder(at:count:)``.
    @inline(__always)
    private func hasFloatMessage(tag: UInt8, at start: Int, count: Int) -> Bool {
        bytes[start] == tag && Int(bytes[start + 1]) == 5 * count && hasFloatTagsInOrder(at: start + 2, count: count)
    }

    /// The fields ``deviceMotionHead()`` reads.
    struct DeviceMotionHead {
        /// Bytes of the five fields: a tag and 8 bytes, then a tag, a length and 20 bytes, then
        /// three times a tag, a length and 15 bytes.
        static let size = 82
        var timestamp: Double
        var attitude: FloatLanes
        var rotationRate: FloatLanes
        var gravity: FloatLanes
        var userAcceleration: FloatLanes
    }

    /// A whole `MagneticField` body with `x`, `y` and `z` present and in order, then its
    /// `accuracy` as a one-byte varint (0 … 127) or absent (0): the lanes and the raw accuracy
    /// from fixed places, the reader at the end. Nil, the reader unmoved, for any other body.
    mutating func magneticFieldBody() -> (field: FloatLanes, accuracy: Int32)? {
        let start = position
        let length = end - start
        guard length == 15 || (length == 17 && bytes[start + 15] == 0x20 && bytes[start + 16] < 0x80), hasFloatTagsInOrder(at: start, count: 3)
        else { return nil }
        position = end
        return (lanes(at: start, count: 3), length == 17 ? Int32(bytes[start + 16]) : 0)
    }

    /// Whether the tags of float fields 1 … `count` (3 or 4) sit at `start`, `start + 5`, …:
    /// the bytes 0x0D, 0x15, 0x1D and 0x25 (field number × 8 + wire type 5).
    @inline(__always)
    private func hasFloatTagsInOrder(at start: Int, count: Int) -> Bool {
        bytes[start] == 0x0D && bytes[start + 5] == 0x15 && bytes[start + 10] == 0x1D && (count == 3 || bytes[start + 15] == 0x25)
    }

    /// The components of a float message body at `start` whose tags are in order
    /// (``hasFloatTagsInOrder(at:count:)``): each value follows its one-byte tag, 5 bytes apart;
    /// `w` is 0 for three components.
    @inline(__always)
    private func lanes(at start: Int, count: Int) -> FloatLanes {
        FloatLanes(x: lane(at: start + 1), y: lane(at: start + 6), z: lane(at: start + 11), w: count == 4 ? lane(at: start + 16) : 0)
    }

    /// The little-endian float at `offset`.
    @inline(__always)
    private func lane(at offset: Int) -> Float {
        Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    /// A reader of the length-delimited body at the reader's position (a nested message whose
    /// tag has been read), which the reader then skips.
    mutating func nestedMessage() throws(Failure) -> ProtobufWireReader {
        ProtobufWireReader(bytes, range: try lengthDelimited())
    }

    /// Skips a field this decoder does not know. Groups nest at most 8 deep (SwiftProtobuf's
    /// message depth limit of these decoders), so no input can exhaust the stack.
    mutating func skip(_ wireType: WireType, number: Int, depth: Int = 0) throws(Failure) {
        switch wireType {
        case .varint: _ = try varint()
        case .fixed64: _ = try double()
        case .fixed32: _ = try float()
        case .lengthDelimited: _ = try lengthDelimited()
        case .startGroup:
            // Skip to the matching end-group tag.
            guard depth < 8 else { throw .malformed }
            while true {
                guard let field = try nextField() else { throw .truncated }
                if field.wireType == .endGroup {
                    guard field.number == number else { throw .malformed }
                    return
                }
                try skip(field.wireType, number: field.number, depth: depth + 1)
            }
        case .endGroup:
            throw .malformed
        }
    }
}
