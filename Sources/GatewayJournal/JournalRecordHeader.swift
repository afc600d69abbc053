/// The fixed 48-byte header of a journal record (see ``JournalLayout``).
package struct JournalRecordHeader: Equatable {
    package var state: UInt8
    package var flags: UInt8
    package var topicLength: UInt16
    package var contentTypeLength: UInt16
    /// Bytes of the W3C `traceparent` the frame carried (0: none).
    package var traceparentLength: UInt16 = 0
    package var payloadLength: UInt32
    package var totalLength: UInt32
    package var sequence: UInt64
    package var receivedAtBits: UInt64
    /// XXH3-64 of the record's body (topic, content type, payload); 0 when not computed.
    package var bodyChecksum: UInt64 = 0

    /// FNV-1a over every field but `state` (which changes on release) and the check itself.
    package var check: UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        func mix(_ value: UInt64, bytes: Int) {
            for index in 0..<bytes {
                hash ^= UInt32(truncatingIfNeeded: value >> (8 * UInt64(index)))
                hash &*= 0x0100_0193
            }
        }
        mix(UInt64(flags), bytes: 1)
        mix(UInt64(topicLength), bytes: 2)
        mix(UInt64(contentTypeLength), bytes: 2)
        mix(UInt64(payloadLength), bytes: 4)
        mix(UInt64(totalLength), bytes: 4)
        mix(sequence, bytes: 8)
        mix(receivedAtBits, bytes: 8)
        // Version 1 records have no body checksum and were checked without it.
        if flags & JournalLayout.bodyChecksumFlag != 0 {
            mix(bodyChecksum, bytes: 8)
            mix(UInt64(traceparentLength), bytes: 2)
        }
        return hash
    }

    package func store(into pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: JournalLayout.recordMagic.littleEndian, toByteOffset: 0, as: UInt32.self)
        pointer.storeBytes(of: flags, toByteOffset: 5, as: UInt8.self)
        pointer.storeBytes(of: topicLength.littleEndian, toByteOffset: 6, as: UInt16.self)
        pointer.storeBytes(of: contentTypeLength.littleEndian, toByteOffset: 8, as: UInt16.self)
        pointer.storeBytes(of: traceparentLength.littleEndian, toByteOffset: 10, as: UInt16.self)
        pointer.storeBytes(of: payloadLength.littleEndian, toByteOffset: 12, as: UInt32.self)
        pointer.storeBytes(of: totalLength.littleEndian, toByteOffset: 16, as: UInt32.self)
        pointer.storeBytes(of: check.littleEndian, toByteOffset: 20, as: UInt32.self)
        pointer.storeBytes(of: sequence.littleEndian, toByteOffset: 24, as: UInt64.self)
        pointer.storeBytes(of: receivedAtBits.littleEndian, toByteOffset: 32, as: UInt64.self)
        pointer.storeBytes(of: bodyChecksum.littleEndian, toByteOffset: 40, as: UInt64.self)
        pointer.storeBytes(of: state, toByteOffset: 4, as: UInt8.self)
    }

    /// Reads a header; nil when the magic or the check does not match (never written, torn, or
    /// not a header at all).
    package static func load(from pointer: UnsafeRawPointer) -> JournalRecordHeader? {
        guard UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) == JournalLayout.recordMagic else { return nil }
        let header = JournalRecordHeader(
            state: pointer.load(fromByteOffset: 4, as: UInt8.self),
            flags: pointer.load(fromByteOffset: 5, as: UInt8.self),
            topicLength: UInt16(littleEndian: pointer.loadUnaligned(fromByteOffset: 6, as: UInt16.self)),
            contentTypeLength: UInt16(littleEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt16.self)),
            traceparentLength: UInt16(littleEndian: pointer.loadUnaligned(fromByteOffset: 10, as: UInt16.self)),
            payloadLength: UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 12, as: UInt32.self)),
            totalLength: UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 16, as: UInt32.self)),
            sequence: UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 24, as: UInt64.self)),
            receivedAtBits: UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 32, as: UInt64.self)),
            bodyChecksum: UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 40, as: UInt64.self)))
        let stored = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
        return stored == header.check ? header : nil
    }
}
