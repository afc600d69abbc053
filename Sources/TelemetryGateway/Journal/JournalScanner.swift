import Foundation
/// Reads a journal ring after a start: finds the records of the current lap from the stored
/// tail on, stopping at the first record that is missing, torn or from an earlier lap.
struct JournalScanner {
    /// A record still to be replayed.
    struct LiveRecord {
        var sequence: UInt64
        var position: UInt64
        var record: JournalRecord
    }

    /// What the scan found.
    struct Result {
        /// Where the oldest live record starts (the write position when none is live).
        var tail: UInt64
        /// Where the next record goes.
        var head: UInt64
        /// The highest sequence number seen (0 in an empty journal).
        var lastSequence: UInt64
        /// Live records, oldest first.
        var live: [LiveRecord]
    }

    let ring: UnsafeRawPointer
    let capacity: Int

    func scan(from storedTail: UInt64) -> Result {
        var position = storedTail
        var lastSequence: UInt64 = 0
        var live: [LiveRecord] = []
        var scanned = 0
        let minimumRecord = JournalLayout.recordSize(topicBytes: 0, contentTypeBytes: 0, payloadBytes: 0)
        scanning: while scanned < capacity {
            let offset = Int(position % UInt64(capacity))
            let rest = capacity - offset
            if rest < minimumRecord {
                // Too little room for a header: the writer skipped to the start implicitly.
                position += UInt64(rest)
                scanned += rest
                continue
            }
            guard let header = JournalRecordHeader.load(from: ring + offset),
                header.sequence > lastSequence,
                Int(header.totalLength) >= minimumRecord, Int(header.totalLength) <= rest,
                Int(header.totalLength) % 8 == 0,
                committed(header, at: offset)
            else { break scanning }
            let total = Int(header.totalLength)
            switch JournalLayout.State(rawValue: header.state) {
            case .live?:
                guard let record = record(header, at: offset) else { break scanning }
                live.append(LiveRecord(sequence: header.sequence, position: position, record: record))
            case .released?, .skip?:
                break
            case nil:
                break scanning
            }
            lastSequence = header.sequence
            position += UInt64(total)
            scanned += total
        }
        return Result(tail: live.first?.position ?? position, head: position, lastSequence: lastSequence, live: live)
    }

    private func committed(_ header: JournalRecordHeader, at offset: Int) -> Bool {
        let end = offset + Int(header.totalLength) - JournalLayout.trailerSize
        return UInt64(littleEndian: ring.loadUnaligned(fromByteOffset: end, as: UInt64.self)) == header.sequence ^ JournalLayout.commitSalt
    }

    private func record(_ header: JournalRecordHeader, at offset: Int) -> JournalRecord? {
        let topicLength = Int(header.topicLength)
        let contentTypeLength = Int(header.contentTypeLength)
        let payloadLength = Int(header.payloadLength)
        guard JournalLayout.recordSize(topicBytes: topicLength, contentTypeBytes: contentTypeLength, payloadBytes: payloadLength) == Int(header.totalLength)
        else { return nil }
        var cursor = offset + JournalLayout.recordHeaderSize
        func take(_ count: Int) -> [UInt8] {
            defer { cursor += count }
            return Array(UnsafeRawBufferPointer(start: ring + cursor, count: count))
        }
        let topic = String(decoding: take(topicLength), as: UTF8.self)
        let contentType = String(decoding: take(contentTypeLength), as: UTF8.self)
        let payload = take(payloadLength)
        return JournalRecord(
            topic: topic, payload: payload, contentType: header.flags & 2 != 0 ? contentType : nil, retained: header.flags & 1 != 0,
            receivedAt: Double(bitPattern: header.receivedAtBits))
    }
}
