import CXXHash
/// The on-disk format of the inbound journal (version 2), in one place.
///
/// ```
/// file   = header (4096 bytes) + ring (capacity bytes)
/// header = magic "WGJOURN1" | version u32 | reserved u32 | capacity u64 | tail u64 (logical position)
///          | tailSequence u64 (sequence of the record at the tail, or of the next record when none is live)
///          | identity u64 (random, set when the file is made: whose sequence numbers these are)
/// record = magic u32 | state u8 | flags u8 | topicLength u16 | contentTypeLength u16 | traceparentLength u16
///          | payloadLength u32 | totalLength u32 | check u32 | sequence u64 | receivedAt f64 bits
///          | bodyChecksum u64 | topic | contentType | traceparent | payload | padding to 8 | commit u64
/// ```
/// All integers little-endian. Positions are logical (they only grow); the byte offset in the
/// ring is `position % capacity`. A record never straddles the ring's end: the rest of the ring
/// is covered by a skip record (or, if less than a header is left, skipped implicitly).
/// `check` is FNV-1a over the header fields other than `state` and `check`; `commit` is the
/// sequence number XOR ``commitSalt``, written last, so a record cut short by a crash is not
/// mistaken for a whole one. `bodyChecksum` (XXH3-64 of topic, content type and payload, present
/// when flag ``bodyChecksumFlag`` is set; with the W3C `traceparent` too) finds a record whose header is whole but whose body is
/// not (a page torn by a power loss): it is counted and skipped, never replayed as garbage.
///
/// Sequence numbers go up by one per record (skip records included) and continue across
/// restarts: the file header keeps the tail's sequence, so a scan knows where the current lap
/// begins and that every record before it — however many laps old — is done with. Version 1
/// files (no `tailSequence`, no body checksums) are read and upgraded in place.
package enum JournalLayout {
    package static let fileMagic: [UInt8] = Array("WGJOURN1".utf8)
    package static let version: UInt32 = 2
    /// Versions this code opens (1 is upgraded to 2 on open).
    package static let readableVersions: ClosedRange<UInt32> = 1...2
    /// Byte offsets of the file header's fields.
    package static let tailOffset = 24
    package static let tailSequenceOffset = 32
    package static let identityOffset = 40
    /// Record flags.
    package static let retainedFlag: UInt8 = 1
    package static let contentTypeFlag: UInt8 = 2
    package static let bodyChecksumFlag: UInt8 = 4
    package static let fileHeaderSize = 4096
    package static let recordMagic: UInt32 = 0x5247_4A57  // "WJGR"
    package static let recordHeaderSize = 48
    package static let trailerSize = 8
    package static let commitSalt: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// Logical positions and sequence numbers from here on are damage, not history: a journal
    /// written at 100 MB/s for a century reaches 2⁵⁸ bytes. Read from a file, such a value would
    /// overflow the next append's arithmetic; the open refuses the file instead.
    package static let damagedFrom: UInt64 = 1 << 62

    /// Record states (the byte at offset 4).
    package enum State: UInt8 {
        /// Not yet released: replayed after a crash.
        case live = 1
        /// Its outputs were acknowledged; kept only until the tail passes it.
        case released = 2
        /// Padding to the ring's end.
        case skip = 3
    }

    /// Bytes a record with these field sizes occupies.
    package static func recordSize(topicBytes: Int, contentTypeBytes: Int, traceparentBytes: Int = 0, payloadBytes: Int) -> Int {
        align8(recordHeaderSize + topicBytes + contentTypeBytes + traceparentBytes + payloadBytes) + trailerSize
    }

    package static func align8(_ value: Int) -> Int { (value + 7) & ~7 }

    /// The byte ranges of the file that hold the ring from logical position `tail` up to `head`
    /// (the records a restart would scan), widened to whole pages of `pageSize` bytes: one range,
    /// or two when they wrap the ring's end; none when `tail == head`. The file header is not
    /// included. Each range starts on a page boundary (as `msync` needs) and ends at the last
    /// live byte. Positions that cannot be (a head behind the tail, more than a ring between
    /// them) give the whole ring: a sync writes too much rather than stop the gateway.
    package static func fileRanges(tail: UInt64, head: UInt64, capacity: Int, pageSize: Int) -> [Range<Int>] {
        guard head >= tail, head - tail <= UInt64(capacity) else { return [fileHeaderSize..<(fileHeaderSize + capacity)] }
        let used = Int(head - tail)
        guard used > 0 else { return [] }
        let start = Int(tail % UInt64(capacity))
        let ring: [Range<Int>] =
            start + used <= capacity ? [start..<(start + used)] : [start..<capacity, 0..<(start + used - capacity)]
        return ring.map { part in
            let lower = fileHeaderSize + part.lowerBound
            return (lower - lower % pageSize)..<(fileHeaderSize + part.upperBound)
        }
    }

    /// The record body's checksum: XXH3-64 chained over topic, content type, traceparent and
    /// payload (each part's hash seeds the next, so the parts need not be contiguous when writing).
    package static func bodyChecksum(
        topic: UnsafeRawBufferPointer, contentType: UnsafeRawBufferPointer, traceparent: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer
    ) -> UInt64 {
        var hash = XXH3_64bits(topic.baseAddress, topic.count)
        for part in [contentType, traceparent, payload] { hash = XXH3_64bits_withSeed(part.baseAddress, part.count, hash) }
        return hash
    }
}
