import Foundation
import GatewayTime
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A memory-mapped ring file holding every frame the subscriber received until the broker has
/// acknowledged everything the frame produced.
///
/// libmosquitto acknowledges an inbound QoS 1 message before our callback runs, so from that
/// moment the frame exists only in this process. The subscriber appends it here first (a copy
/// into the page cache, which survives `kill -9` and any crash of the process) and the record is
/// released only when its outputs are acknowledged. A restarted gateway replays the records not
/// released, before it subscribes: at least once, never lost. Outputs carry deterministic
/// event ids, so a replay yields duplicates, never gaps.
///
/// Records are written through the file (`pwritev`) and read back through the mapping; both are
/// the same page cache.
///
/// Power loss is bounded by ``sync()`` (called every `journal.flushInterval`), which writes the
/// pages of the records not yet released to disk. Released records are not written: their frames
/// are done with, and writing them made the gateway write every byte it received to disk, which
/// cost CPU and disk bandwidth (docs/performance.md); the kernel writes those pages when it
/// cleans dirty pages of its own accord, by default those dirty for 30 s.
///
/// Thread-safe: appends take turns (the subscriber's network thread is the only producer) and any
/// thread releases.
package final class InboundJournal: @unchecked Sendable {
    /// How an append went.
    package enum AppendOutcome: Equatable {
        /// Stored; release the ticket when the frame's outputs are acknowledged. `waited` is how
        /// long the producer waited for room (0 when there was room).
        case stored(JournalTicket, waited: Double)
        /// No room within the allowed wait (or the record is larger than half the ring): the
        /// frame goes on unjournaled and the caller counts it. The journal then bypasses
        /// (``bypassed``) until its use falls to the low-water mark.
        case full(waited: Double)
        /// A wait for room timed out recently and the ring has not drained to its low-water mark
        /// since: handed on at once, unjournaled (the caller counts it), so a ring pinned by slow
        /// outputs costs one `journal.maxWait`, not one per frame.
        case bypassed
        /// The file did not take the record (a full disk, an I/O error; `reason` says which): the
        /// frame goes on unjournaled and the caller counts it.
        case failed(waited: Double, reason: String)
        /// The journal is closed.
        case closed
    }

    /// Counters and levels for metrics.
    package struct Statistics: Sendable, Equatable {
        /// Bytes between the oldest unreleased record and the write position.
        package var usedBytes: Int
        /// The ring's size in bytes.
        package var capacityBytes: Int
        /// Records not released yet.
        package var liveRecords: Int
        /// Whether appends bypass the journal (see ``AppendOutcome/bypassed``).
        package var bypassing: Bool
        /// Seconds since the oldest live record was received (0 when none is live): how long one
        /// record has been holding every record behind it.
        package var oldestRecordAge: Double = 0
    }

    /// What one ``sync()`` wrote.
    package struct SyncOutcome: Sendable, Equatable {
        /// Bytes of the file handed to `msync`: the pages of the live records and the header.
        package var bytes: Int
        /// Why an `msync` failed (an I/O error: those records may not be on disk), or nil.
        package var failure: String?
    }

    /// What opening the file found, for the start-up log and metrics.
    package struct OpenReport: Sendable {
        /// Records to replay.
        package var liveRecords: Int
        /// Live records skipped because their body failed its checksum (torn pages).
        package var corruptRecords: Int
        /// Where the scan stopped at a bad record instead of the end of the lap, and why.
        package var stoppedAt: (position: UInt64, reason: String)?
        /// The file was version 1 and was upgraded.
        package var upgraded: Bool
    }

    private struct Entry {
        package var sequence: UInt64
        package var position: UInt64
        package var released: Bool
        /// The shard whose worker holds the record (-1: unknown, a record of an earlier run).
        package var shard: Int32 = -1
        /// When the frame was received, Unix epoch seconds.
        package var receivedAt: Double
    }

    package let path: String
    package let capacity: Int
    /// Bytes in use below which a bypassing journal takes records again.
    package let lowWaterBytes: Int
    /// What the scan at open found.
    package let openReport: OpenReport
    /// Random, made with the file: device snapshots name the journal their applied sequence
    /// belongs to, so a journal made anew (or another instance's) never skips a frame.
    package let identity: UInt64
    /// Records found live when the file was opened, oldest first, until ``takeRecovered()``.
    package var recovered: [(ticket: JournalTicket, record: JournalRecord)] {
        condition.lock()
        defer { condition.unlock() }
        return pendingReplay
    }
    private var pendingReplay: [(ticket: JournalTicket, record: JournalRecord)]

    private let base: UnsafeMutableRawPointer
    private let mappedSize: Int
    /// Kept open for the exclusive lock: one journal, one gateway process.
    private let descriptor: Int32
    private let condition = MonotonicCondition()
    private var head: UInt64
    private var tail: UInt64
    private var nextSequence: UInt64
    /// Live and released records from the tail on, in sequence order; `first` indexes the oldest.
    private var entries: [Entry] = []
    private var first = 0
    private var liveCount = 0
    private var closed = false
    private var bypassing = false
    /// An append is writing its record (without the lock) at `head`.
    private var appending = false
    /// Which shards to ask for an early snapshot write when the ring fills (``JournalPressure``).
    private var pressure: JournalPressure
    /// Asks a shard's worker to write its snapshots now (called with the journal's lock held:
    /// it must not block or call back into the journal).
    private let askShard: @Sendable (Int) -> Void
    /// Where the pressure's spacing, the oldest record's age and the waits read the time.
    private let clock: any GatewayClock

    /// Opens (or creates) the journal at `path` with a ring of `capacity` bytes. An existing
    /// file of another capacity or format is an error (it may hold frames: never overwritten).
    /// - Parameters:
    ///   - clock: where the spacing of early snapshot requests, the oldest record's age and the
    ///     waits (for room, for a sync) read the time.
    ///   - askShard: asks a shard's worker to write its device snapshots now: the ring is past
    ///     its high-water mark and that shard holds records at its tail (``JournalPressure``).
    ///     Called with the journal's lock held, so it must neither block nor call the journal;
    ///     the worker answers with ``relieved(shard:)``.
    package init(path: String, capacity: Int, clock: any GatewayClock, askShard: @escaping @Sendable (Int) -> Void = { _ in }) throws {
        precondition(capacity >= 4 * JournalLayout.fileHeaderSize && capacity % 8 == 0, "journal capacity must be a multiple of 8, at least 16 KiB")
        self.path = path
        self.capacity = capacity
        self.clock = clock
        self.askShard = askShard
        pressure = JournalPressure(capacity: capacity)
        let mappedBytes = JournalLayout.fileHeaderSize + capacity  // for the defer below, which may not read self
        mappedSize = mappedBytes
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }

        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw JournalError("cannot open \(path): \(String(cString: strerror(errno)))") }
        // Until the header is accepted, every refusal lets go of the mapping, the lock and the file.
        var keepOpen = false
        var mapped: UnsafeMutableRawPointer?
        defer {
            if !keepOpen {
                if let mapped { munmap(mapped, mappedBytes) }
                Self.closeLocked(descriptor)
            }
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            throw JournalError("\(path) is in use by another gateway process; give each instance its own journal.path")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw JournalError("cannot stat \(path): \(String(cString: strerror(errno)))") }
        let isNew = status.st_size == 0
        lowWaterBytes = capacity / 2
        if !isNew && Int(status.st_size) != mappedSize {
            throw JournalError(
                "\(path) has \(status.st_size) bytes but journal.sizeBytes asks for a \(capacity)-byte ring (\(mappedSize) bytes with its header); replay it with the old size or move it away")
        }
        if isNew, ftruncate(descriptor, off_t(mappedSize)) != 0 {
            throw JournalError("cannot size \(path) to \(mappedSize) bytes: \(String(cString: strerror(errno)))")
        }
        guard let mapping = mmap(nil, mappedSize, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else {
            throw JournalError("cannot map \(path): \(String(cString: strerror(errno)))")
        }
        mapped = mapping
        base = mapping
        self.descriptor = descriptor

        if isNew {
            JournalLayout.fileMagic.withUnsafeBytes { [mapping] in mapping.copyMemory(from: $0.baseAddress!, byteCount: 8) }
            base.storeBytes(of: JournalLayout.version.littleEndian, toByteOffset: 8, as: UInt32.self)
            base.storeBytes(of: UInt64(capacity).littleEndian, toByteOffset: 16, as: UInt64.self)
            base.storeBytes(of: UInt64(0), toByteOffset: JournalLayout.tailOffset, as: UInt64.self)
            base.storeBytes(of: UInt64(1).littleEndian, toByteOffset: JournalLayout.tailSequenceOffset, as: UInt64.self)
        }
        var version = JournalLayout.version
        if !isNew {
            let magic = Array(UnsafeRawBufferPointer(start: base, count: 8))
            version = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            let storedCapacity = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            guard magic == JournalLayout.fileMagic, JournalLayout.readableVersions.contains(version), storedCapacity == UInt64(capacity) else {
                throw JournalError("\(path) is not a version-\(JournalLayout.version) journal with a \(capacity)-byte ring")
            }
        }
        // Version 1 kept no tail sequence (the field was zero): the scan then takes any first one.
        let storedTailSequence = version == 1 ? 0 : UInt64(littleEndian: base.loadUnaligned(fromByteOffset: JournalLayout.tailSequenceOffset, as: UInt64.self))
        let storedTail = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: JournalLayout.tailOffset, as: UInt64.self))
        // Records start at multiples of 8, so a tail between them is damage too.
        guard storedTail < JournalLayout.damagedFrom, storedTail % 8 == 0, storedTailSequence < JournalLayout.damagedFrom else {
            throw JournalError(
                "\(path) has a damaged header (tail position \(storedTail), tail sequence \(storedTailSequence)): where its live records start is unknown; move it away to start with an empty journal"
            )
        }
        keepOpen = true
        let scan = JournalScanner(ring: base + JournalLayout.fileHeaderSize, capacity: capacity).scan(from: storedTail, tailSequence: storedTailSequence)
        tail = scan.tail
        head = scan.head
        nextSequence = scan.nextSequence
        pendingReplay = scan.live.map { (JournalTicket(sequence: $0.sequence), $0.record) }
        entries = scan.live.map { Entry(sequence: $0.sequence, position: $0.position, released: false, receivedAt: $0.record.receivedAt) }
        liveCount = entries.count
        openReport = OpenReport(
            liveRecords: scan.live.count, corruptRecords: scan.corruptRecords, stoppedAt: scan.stoppedAt.map { ($0.position, $0.reason.description) },
            upgraded: version < JournalLayout.version)
        var identity = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: JournalLayout.identityOffset, as: UInt64.self))
        if identity == 0 {
            // A new file, or one from before identities.
            identity = UInt64.random(in: 1...UInt64.max)
            base.storeBytes(of: identity.littleEndian, toByteOffset: JournalLayout.identityOffset, as: UInt64.self)
        }
        self.identity = identity
        storeTail()
        base.storeBytes(of: JournalLayout.version.littleEndian, toByteOffset: 8, as: UInt32.self)
    }

    deinit {
        sync()
        munmap(base, mappedSize)
        Self.closeLocked(descriptor)
    }

    /// Lets go of the file lock, then closes. The lock belongs to the open file, which a child
    /// process spawned by this one shares until its `exec` closes its copy; without the
    /// explicit unlock, a journal reopened at that moment found the file "in use" (seen in
    /// the test process, which spawns brokers and gateways while its suites open journals).
    private static func closeLocked(_ descriptor: Int32) {
        flock(descriptor, LOCK_UN)
        Glibc.close(descriptor)
    }

    /// Hands over the records to replay (before subscribing) and lets go of their copies, which
    /// may be a whole ring's worth of memory.
    package func takeRecovered() -> [(ticket: JournalTicket, record: JournalRecord)] {
        condition.lock()
        defer {
            pendingReplay = []
            condition.unlock()
        }
        return pendingReplay
    }

    // MARK: Appending

    /// Appends a record, waiting up to `maxWait` seconds for room when the ring is full (which
    /// blocks the calling thread: only the subscriber's network thread calls this). `shard` is
    /// the worker the frame goes to: past the high-water mark, the shards holding the records at
    /// the tail are asked to write their snapshots (``JournalPressure``).
    package func append(_ record: JournalRecord, shard: Int? = nil, maxWait: Double) -> AppendOutcome {
        let size = record.journalSize
        condition.lock()
        defer { condition.unlock() }
        // One append at a time (the record is written without the lock, below); the subscriber's
        // network thread is the only caller, so this never waits in the gateway.
        while appending { condition.wait() }
        guard !closed else { return .closed }
        guard size <= capacity / 2 else { return .full(waited: 0) }
        relieveIfPressed(adding: size)
        if bypassing {
            guard Int(head - tail) <= lowWaterBytes else { return .bypassed }
            bypassing = false
        }
        var waited = 0.0
        if !hasRoom(for: size) {
            // Measured on the journal's clock; the thread blocks on the condition until that
            // clock's monotonic now plus the wait (on the system clock, CLOCK_MONOTONIC: the condition's).
            let start = clock.monotonicNow()
            let deadline = start + .seconds(maxWait)
            while !hasRoom(for: size) && !closed {
                if !condition.wait(until: deadline) { break }
                // The tail moved (or not): the records now at it may be another shard's.
                relieveIfPressed(adding: size)
            }
            waited = clock.secondsSince(start)
            guard !closed else { return .closed }
            guard hasRoom(for: size) else {
                // Only a wait that timed out starts bypassing (maxWait 0 never waits anyway).
                bypassing = maxWait > 0
                return .full(waited: waited)
            }
        }
        guard padToEndIfNeeded(for: size) else {
            return .failed(waited: waited, reason: String(cString: strerror(errno)))
        }
        // The record is written without the lock: a release (a worker, a publish completion) or a
        // metrics read waiting behind a 16–90 KB `pwritev` put a thread to sleep and made this
        // one wake it, about once per read group. The bytes from `head` on are ours alone until
        // `head` moves past them: there is one producer, the room was checked above and only
        // grows, and a release never moves the tail beyond `head`.
        let sequence = nextSequence
        let position = head
        appending = true
        condition.unlock()
        let written = write(record, sequence: sequence, state: .live, at: position, size: size)
        let reason = written ? "" : String(cString: strerror(errno))
        condition.lock()
        appending = false
        condition.broadcast()
        guard written else { return .failed(waited: waited, reason: reason) }
        nextSequence += 1
        entries.append(Entry(sequence: sequence, position: position, released: false, shard: Int32(shard ?? -1), receivedAt: record.receivedAt))
        liveCount += 1
        head += UInt64(size)
        return .stored(JournalTicket(sequence: sequence), waited: waited)
    }

    /// Past the high-water mark (counting a record of `size` about to be appended), asks the
    /// shards holding the records at the tail to write their snapshots now. Called with the lock.
    private func relieveIfPressed(adding size: Int) {
        guard pressure.isPressed(usedBytes: Int(head - tail) + size), first < entries.count else { return }
        var tailShards: [Int] = []
        var index = first
        while index < entries.count && index - first < JournalPressure.tailRecordsExamined {
            if !entries[index].released, entries[index].shard >= 0 { tailShards.append(Int(entries[index].shard)) }
            index += 1
        }
        for shard in pressure.shardsToAsk(tailShards: tailShards, now: clock.monotonicNow()) { askShard(shard) }
    }

    /// A shard asked by ``JournalPressure`` wrote its snapshots (or held nothing): it may be asked again.
    package func relieved(shard: Int) {
        condition.lock()
        pressure.relieved(shard)
        condition.unlock()
    }

    /// Bytes free for a record of `size`, counting the skip to the ring's start it may need.
    private func hasRoom(for size: Int) -> Bool {
        let used = Int(head - tail)
        let offset = Int(head % UInt64(capacity))
        let skip = capacity - offset < size ? capacity - offset : 0
        return used + skip + size <= capacity
    }

    /// Covers the rest of the ring with a skip record when the next record does not fit there.
    /// False (`errno` set) when the skip record cannot be written: the head stays.
    private func padToEndIfNeeded(for size: Int) -> Bool {
        let offset = Int(head % UInt64(capacity))
        let rest = capacity - offset
        guard rest < size else { return true }
        if rest >= JournalLayout.recordSize(topicBytes: 0, contentTypeBytes: 0, payloadBytes: 0) {
            let sequence = nextSequence
            let header = JournalRecordHeader(
                state: JournalLayout.State.skip.rawValue, flags: 0, topicLength: 0, contentTypeLength: 0, payloadLength: 0, totalLength: UInt32(rest),
                sequence: sequence, receivedAtBits: 0)
            let written = withUnsafeTemporaryAllocation(byteCount: JournalLayout.recordHeaderSize, alignment: 8) { scratch in
                header.store(into: scratch.baseAddress!)
                return writeBytes(UnsafeRawBufferPointer(scratch), at: offset)
            }
            let commit = (sequence ^ JournalLayout.commitSalt).littleEndian
            guard written, withUnsafeBytes(of: commit, { writeBytes($0, at: offset + rest - JournalLayout.trailerSize) }) else { return false }
            nextSequence += 1
        }
        head += UInt64(rest)
        // Nothing live between the tail and here means the tail may jump too.
        if entries.count == first { tail = head; storeTail() }
        return true
    }

    /// Writes a whole record with one `pwritev`: header, topic, content type, payload, padding
    /// and the commit word last (the kernel copies in file order, so a write cut short by a crash
    /// leaves no commit word and the record is not replayed). Through the file, not the mapping:
    /// storing into fresh mapped pages costs two page faults per 4 KiB page (a zero-filled read
    /// fault, then `page_mkwrite`) and again after every writeback, ≈ 8 % of the gateway's CPU
    /// with batched frames; `pwritev` copies into the same page cache without faulting. False
    /// when the file cannot take it (a full disk, an I/O error), with `errno` set.
    private func write(_ record: JournalRecord, sequence: UInt64, state: JournalLayout.State, at position: UInt64, size: Int) -> Bool {
        let offset = Int(position % UInt64(capacity))
        var topic = record.topic
        var contentType = record.contentType ?? ""
        var traceparent = record.traceparent ?? ""
        let flags: UInt8 =
            (record.retained ? JournalLayout.retainedFlag : 0) | (record.contentType != nil ? JournalLayout.contentTypeFlag : 0) | JournalLayout.bodyChecksumFlag
        return topic.withUTF8 { topicBytes in
            contentType.withUTF8 { contentTypeBytes in
                traceparent.withUTF8 { traceparentBytes in
                    record.payload.withUnsafeBytes { payloadBytes in
                        let header = JournalRecordHeader(
                            state: state.rawValue, flags: flags, topicLength: UInt16(topicBytes.count), contentTypeLength: UInt16(contentTypeBytes.count),
                            traceparentLength: UInt16(traceparentBytes.count), payloadLength: UInt32(payloadBytes.count), totalLength: UInt32(size),
                            sequence: sequence, receivedAtBits: record.receivedAt.bitPattern,
                            bodyChecksum: JournalLayout.bodyChecksum(
                                topic: UnsafeRawBufferPointer(topicBytes), contentType: UnsafeRawBufferPointer(contentTypeBytes),
                                traceparent: UnsafeRawBufferPointer(traceparentBytes), payload: payloadBytes))
                        let parts = [UnsafeRawBufferPointer(topicBytes), UnsafeRawBufferPointer(contentTypeBytes), UnsafeRawBufferPointer(traceparentBytes), payloadBytes]
                        return write(header, parts: parts, sequence: sequence, at: offset, size: size)
                    }
                }
            }
        }
    }

    /// Writes a header, the body's parts, the padding and the commit word with one `pwritev`.
    private func write(_ header: JournalRecordHeader, parts: [UnsafeRawBufferPointer], sequence: UInt64, at offset: Int, size: Int) -> Bool {
        let bodyLength = JournalLayout.recordHeaderSize + parts.reduce(0) { $0 + $1.count }
        let padding = size - JournalLayout.trailerSize - bodyLength
        return withUnsafeTemporaryAllocation(byteCount: JournalLayout.recordHeaderSize + 16, alignment: 8) { scratch in
            let headerBytes = scratch.baseAddress!
            header.store(into: headerBytes)
            // Padding (< 8 zero bytes) and the commit word, contiguous.
            let trailer = headerBytes + JournalLayout.recordHeaderSize
            trailer.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
            trailer.storeBytes(of: (sequence ^ JournalLayout.commitSalt).littleEndian, toByteOffset: padding, as: UInt64.self)
            return withUnsafeTemporaryAllocation(of: iovec.self, capacity: parts.count + 2) { vectors in
                var count = 0
                func add(_ start: UnsafeRawPointer?, _ length: Int) {
                    guard length > 0 else { return }
                    vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: start), iov_len: length)
                    count += 1
                }
                add(headerBytes, JournalLayout.recordHeaderSize)
                for part in parts { add(part.baseAddress, part.count) }
                add(trailer, padding + JournalLayout.trailerSize)
                return writeFully(UnsafeMutableBufferPointer(rebasing: vectors[..<count]), at: offset, total: size)
            }
        }
    }

    /// `pwritev` at ring offset `offset` until `total` bytes are written (a regular file may take
    /// fewer bytes per call); false on an error.
    private func writeFully(_ vectors: UnsafeMutableBufferPointer<iovec>, at offset: Int, total: Int) -> Bool {
        var written = 0
        var index = 0
        while written < total {
            let result = pwritev(descriptor, vectors.baseAddress! + index, Int32(vectors.count - index), off_t(JournalLayout.fileHeaderSize + offset + written))
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            if result == 0 { errno = EIO; return false }
            written += result
            // Drop the vectors written whole and trim a partly written one.
            var rest = result
            while index < vectors.count && rest >= vectors[index].iov_len {
                rest -= vectors[index].iov_len
                index += 1
            }
            if rest > 0 {
                vectors[index].iov_base += rest
                vectors[index].iov_len -= rest
            }
        }
        return true
    }

    /// Writes `bytes` at ring offset `offset` through the file (see ``write(_:sequence:state:at:size:)``).
    private func writeBytes(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: 1) { vector in
            vector[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
            return writeFully(vector, at: offset, total: bytes.count)
        }
    }

    // MARK: Releasing

    /// Marks a record done; the space of the oldest done records is reused. Releasing twice,
    /// or a ticket of another journal, does nothing.
    package func release(_ ticket: JournalTicket) {
        condition.lock()
        guard let found = index(of: ticket.sequence), !entries[found].released else {
            condition.unlock()
            return
        }
        if found != first {
            // Past the tail only its state byte keeps a released record from being replayed;
            // written through the file like the record (a store into the mapping would fault the
            // page in). Should it fail, the record is replayed after a crash: a duplicate, never
            // a loss. The oldest record needs no byte: the tail moves past it below. Written
            // without the lock, so the producer never waits behind it, and before the record is
            // marked released, so its bytes cannot have been reused by then.
            let offset = Int(entries[found].position % UInt64(capacity)) + 4
            condition.unlock()
            _ = withUnsafeBytes(of: JournalLayout.State.released.rawValue) { writeBytes($0, at: offset) }
            condition.lock()
        }
        defer { condition.unlock() }
        // Looked up again: the entries may have been compacted meanwhile, and another release of
        // the same ticket may have come first.
        guard let index = index(of: ticket.sequence), !entries[index].released else { return }
        entries[index].released = true
        liveCount -= 1
        guard index == first else { return }
        while first < entries.count && entries[first].released { first += 1 }
        tail = first < entries.count ? entries[first].position : head
        storeTail()
        if first > 1024 && first * 2 > entries.count {
            entries.removeFirst(first)
            first = 0
        }
        condition.broadcast()
    }

    private func index(of sequence: UInt64) -> Int? {
        var low = first
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].sequence < sequence { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].sequence == sequence ? low : nil
    }

    /// Stores the tail and then its sequence (the scan accepts a newer sequence at the tail, so
    /// a crash between the two stores is harmless); records before it are done with.
    private func storeTail() {
        let tailSequence = first < entries.count ? entries[first].sequence : nextSequence
        base.storeBytes(of: tail.littleEndian, toByteOffset: JournalLayout.tailOffset, as: UInt64.self)
        base.storeBytes(of: tailSequence.littleEndian, toByteOffset: JournalLayout.tailSequenceOffset, as: UInt64.self)
    }

    // MARK: Durability and state

    /// Writes the records not released yet to disk, then the file header with the tail (bounds
    /// what a power loss may cost; a process crash loses nothing without it). The records go
    /// first, so the header this sync writes names a tail whose records are on disk (the
    /// kernel's own write-back may write the header page between syncs, as it always could).
    /// A record appended meanwhile waits for the next sync, as it would for a sync of the whole
    /// file.
    @discardableResult
    package func sync() -> SyncOutcome {
        var outcome = SyncOutcome(bytes: 0, failure: nil)
        for range in rangesToSync() + [0..<JournalLayout.fileHeaderSize] {
            if msync(base + range.lowerBound, range.count, MS_SYNC) != 0, outcome.failure == nil {
                outcome.failure = String(cString: strerror(errno))
            }
            outcome.bytes += range.count
        }
        return outcome
    }

    /// The file's byte ranges ``sync()`` writes before the header: the pages of the live part of
    /// the ring, from the tail to the head.
    package func rangesToSync() -> [Range<Int>] {
        condition.lock()
        let (tail, head) = (self.tail, self.head)
        condition.unlock()
        return JournalLayout.fileRanges(tail: tail, head: head, capacity: capacity, pageSize: Self.pageSize)
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// ``sync()`` on a thread of its own: `msync` waits for the disk (seconds when it is busy),
    /// and on Swift's cooperative pool, a couple of threads wide, that wait would stall every
    /// task of the process.
    /// Returns what it wrote and how long it took (seconds).
    @discardableResult
    package func syncOffPool() async -> (outcome: SyncOutcome, seconds: Double) {
        await withCheckedContinuation { (continuation: CheckedContinuation<(outcome: SyncOutcome, seconds: Double), Never>) in
            // Strong, on purpose: the last reference may go with this block, and the deinit then
            // runs its msync here, off Swift's cooperative pool. Held weakly, the deinit's msync ran
            // on a pool thread whenever a run ended; with many in-process gateways ending at once
            // (the test suite) that blocked the pool and stalled the whole process for ~30 s.
            // The file lock is let go at a definite point by JournalReleaseService instead.
            Self.syncQueue.async {
                let start = self.clock.monotonicNow()
                let outcome = self.sync()
                continuation.resume(returning: (outcome, self.clock.secondsSince(start)))
            }
        }
    }

    private static let syncQueue = DispatchQueue(label: "journal-sync")

    /// Lets another journal in this process or another open the file (the file lock is released;
    /// the mapping stays valid until this object goes). Called once nothing of the run writes
    /// to it any more.
    package func unlock() {
        flock(descriptor, LOCK_UN)
    }

    /// Refuses further appends and wakes a waiting producer (shutdown).
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Levels for metrics.
    package var statistics: Statistics {
        condition.lock()
        var levels = Statistics(usedBytes: Int(head - tail), capacityBytes: capacity, liveRecords: liveCount, bypassing: bypassing)
        // The entry at `first` is the oldest live one (released ones before it are skipped).
        let oldest = first < entries.count ? entries[first].receivedAt : nil
        condition.unlock()
        // The clock is read after the lock is let go: appends and releases never wait for it.
        if let oldest { levels.oldestRecordAge = max(0, clock.wallTime() - oldest) }
        return levels
    }
}

/// A journal that cannot be opened; the message names the file and what to do.
package struct JournalError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
