import Foundation
/// The on-disk format of the inbound journal (version 1), in one place.
///
/// ```
/// file   = header (4096 bytes) + ring (capacity bytes)
/// header = magic "WGJOURN1" | version u32 | reserved u32 | capacity u64 | tail u64 (logical position)
/// record = magic u32 | state u8 | flags u8 | topicLength u16 | contentTypeLength u16 | reserved u16
///          | payloadLength u32 | totalLength u32 | check u32 | sequence u64 | receivedAt f64 bits
///          | reserved u64 | topic | contentType | payload | padding to 8 | commit u64
/// ```
/// All integers little-endian. Positions are logical (they only grow); the byte offset in the
/// ring is `position % capacity`. A record never straddles the ring's end: the rest of the ring
/// is covered by a skip record (or, if less than a header is left, skipped implicitly).
/// `check` is FNV-1a over the header fields other than `state` and `check`; `commit` is the
/// sequence number XOR ``commitSalt``, written last, so a record cut short by a crash is not
/// mistaken for a whole one. Sequence numbers strictly increase, which tells the records of the
/// current lap from stale ones of the previous lap.
enum JournalLayout {
    static let fileMagic: [UInt8] = Array("WGJOURN1".utf8)
    static let version: UInt32 = 1
    static let fileHeaderSize = 4096
    static let recordMagic: UInt32 = 0x5247_4A57  // "WJGR"
    static let recordHeaderSize = 48
    static let trailerSize = 8
    static let commitSalt: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Record states (the byte at offset 4).
    enum State: UInt8 {
        /// Not yet released: replayed after a crash.
        case live = 1
        /// Its outputs were acknowledged; kept only until the tail passes it.
        case released = 2
        /// Padding to the ring's end.
        case skip = 3
    }

    /// Bytes a record with these field sizes occupies.
    static func recordSize(topicBytes: Int, contentTypeBytes: Int, payloadBytes: Int) -> Int {
        align8(recordHeaderSize + topicBytes + contentTypeBytes + payloadBytes) + trailerSize
    }

    static func align8(_ value: Int) -> Int { (value + 7) & ~7 }
}
