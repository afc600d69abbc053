
/// Reads a journal ring after a start: walks the records of the current lap from the stored
/// tail on, in sequence order, until the lap ends.
///
/// The lap ends where the next record is missing or older than its predecessor (a record of an
/// earlier lap, already done with). Anything else that does not read as the next record — a
/// header whose check fails, a gap in the sequence, a missing commit word, a length that does
/// not fit — also ends the scan, but as a *bad record*: the result says so, and the gateway
/// logs it and counts it. A record whose header is whole but whose body fails its checksum (a
/// torn page) is skipped and counted; the scan goes on past it.
package struct JournalScanner {
    /// A record still to be replayed.
    package struct LiveRecord {
        package var sequence: UInt64
        package var position: UInt64
        package var record: JournalRecord
    }

    /// Why a scan stopped before the natural end of the lap.
    package enum BadRecord: Equatable, CustomStringConvertible {
        /// A record magic with a header that fails its check.
        case headerCheck
        /// A sequence number that is not the next one (a gap: records lost in between).
        case sequenceGap(expected: UInt64, found: UInt64)
        /// A whole header without its commit word (a write cut short), or impossible lengths.
        case incomplete
        /// A state byte this version does not know.
        case unknownState(UInt8)

        package var description: String {
            switch self {
            case .headerCheck: "a record header fails its check"
            case .sequenceGap(let expected, let found): "expected record \(expected), found \(found)"
            case .incomplete: "a record is incomplete (no commit word, or lengths that do not fit)"
            case .unknownState(let state): "a record has the unknown state \(state)"
            }
        }
    }

    /// What the scan found.
    package struct Result {
        /// Where the oldest live record starts (the write position when none is live).
        package var tail: UInt64
        /// Where the next record goes.
        package var head: UInt64
        /// The sequence number the next record gets.
        package var nextSequence: UInt64
        /// Live records, oldest first.
        package var live: [LiveRecord]
        /// Live records skipped because their body failed its checksum.
        package var corruptRecords: Int
        /// Set when the scan stopped at a bad record rather than at the end of the lap; `at` is
        /// the logical position.
        package var stoppedAt: (position: UInt64, reason: BadRecord)?
    }

    package let ring: UnsafeRawPointer
    package let capacity: Int

    /// Scans from `storedTail`, whose record has sequence `tailSequence` (0: unknown, a version
    /// 1 file, where any first sequence is accepted).
    package func scan(from storedTail: UInt64, tailSequence: UInt64) -> Result {
        var position = storedTail
        var expected: UInt64? = tailSequence > 0 ? tailSequence : nil
        var live: [LiveRecord] = []
        var corrupt = 0
        var stopped: (position: UInt64, reason: BadRecord)?
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
            let pointer = ring + offset
            guard UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) == JournalLayout.recordMagic else {
                break scanning  // never written: the end of the lap
            }
            // A sequence number no journal reaches is damage that happens to pass the check.
            guard let header = JournalRecordHeader.load(from: pointer), header.sequence < JournalLayout.damagedFrom else {
                stopped = (position, .headerCheck)
                break scanning
            }
            if let expected, header.sequence != expected {
                // An older sequence is an earlier lap: the natural end. A newer one is a gap, except
                // at the tail, whose position is stored before its sequence (a crash between the
                // two leaves the older sequence).
                let atTail = position == storedTail
                if header.sequence < expected || !atTail {
                    if header.sequence > expected { stopped = (position, .sequenceGap(expected: expected, found: header.sequence)) }
                    break scanning
                }
            }
            let total = Int(header.totalLength)
            guard total >= minimumRecord, total <= rest, total % 8 == 0, committed(header, at: offset) else {
                stopped = (position, .incomplete)
                break scanning
            }
            switch JournalLayout.State(rawValue: header.state) {
            case .live?:
                guard let record = record(header, at: offset) else {
                    stopped = (position, .incomplete)
                    break scanning
                }
                if let record {
                    live.append(LiveRecord(sequence: header.sequence, position: position, record: record))
                } else {
                    corrupt += 1
                }
            case .released?, .skip?:
                break
            case nil:
                stopped = (position, .unknownState(header.state))
                break scanning
            }
            expected = header.sequence + 1
            position += UInt64(total)
            scanned += total
        }
        return Result(
            tail: live.first?.position ?? position, head: position, nextSequence: max(expected ?? 1, tailSequence, 1), live: live,
            corruptRecords: corrupt, stoppedAt: stopped)
    }

    private func committed(_ header: JournalRecordHeader, at offset: Int) -> Bool {
        let end = offset + Int(header.totalLength) - JournalLayout.trailerSize
        return UInt64(littleEndian: ring.loadUnaligned(fromByteOffset: end, as: UInt64.self)) == header.sequence ^ JournalLayout.commitSalt
    }

    /// The record's fields: nil when its lengths do not add up (a bad record), `.some(nil)` when
    /// its body fails the checksum (a torn page: skipped).
    private func record(_ header: JournalRecordHeader, at offset: Int) -> JournalRecord?? {
        let topicLength = Int(header.topicLength)
        let contentTypeLength = Int(header.contentTypeLength)
        let traceparentLength = Int(header.traceparentLength)
        let payloadLength = Int(header.payloadLength)
        guard
            JournalLayout.recordSize(
                topicBytes: topicLength, contentTypeBytes: contentTypeLength, traceparentBytes: traceparentLength, payloadBytes: payloadLength)
                == Int(header.totalLength)
        else { return nil }
        let start = ring + offset + JournalLayout.recordHeaderSize
        let topicBytes = UnsafeRawBufferPointer(start: start, count: topicLength)
        let contentTypeBytes = UnsafeRawBufferPointer(start: start + topicLength, count: contentTypeLength)
        let traceparentBytes = UnsafeRawBufferPointer(start: start + topicLength + contentTypeLength, count: traceparentLength)
        let payloadBytes = UnsafeRawBufferPointer(start: start + topicLength + contentTypeLength + traceparentLength, count: payloadLength)
        if header.flags & JournalLayout.bodyChecksumFlag != 0,
            JournalLayout.bodyChecksum(topic: topicBytes, contentType: contentTypeBytes, traceparent: traceparentBytes, payload: payloadBytes)
                != header.bodyChecksum
        {
            return .some(nil)
        }
        let topic = String(decoding: topicBytes, as: UTF8.self)
        let contentType = String(decoding: contentTypeBytes, as: UTF8.self)
        let payload = Array(payloadBytes)
        return JournalRecord(
            topic: topic, payload: payload, contentType: header.flags & JournalLayout.contentTypeFlag != 0 ? contentType : nil,
            retained: header.flags & JournalLayout.retainedFlag != 0, receivedAt: Double(bitPattern: header.receivedAtBits),
            traceparent: traceparentLength > 0 ? String(decoding: traceparentBytes, as: UTF8.self) : nil)
    }

}
