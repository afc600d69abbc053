@testable import GatewayJournal
import Foundation
import Locking
import TelemetrySimulation
import Testing

@testable import TelemetryGateway

#if canImport(Glibc)
import Glibc
#endif

@Suite("Inbound journal (memory-mapped ring)")
struct InboundJournalTests {
    private static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wg-journal-\(UUID().uuidString)/journal.bin").path
    }

    private static func record(_ index: Int, payloadBytes: Int = 100, contentType: String? = "application/json") -> JournalRecord {
        // Deterministic bytes covering every value, so equal indices give equal records.
        let payload = (0..<payloadBytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7) }
        return JournalRecord(
            topic: "wearables/watch-\(index % 7)/status", payload: payload, contentType: index % 3 == 0 ? nil : contentType, retained: index % 5 == 0,
            receivedAt: 1_700_000_000 + Double(index) / 8)
    }

    private static func ticket(_ outcome: InboundJournal.AppendOutcome) throws -> JournalTicket {
        guard case .stored(let ticket, _) = outcome else { throw JournalTestFailure("append was \(outcome)") }
        return ticket
    }

    @Test("records not released survive reopening byte for byte, in order; released ones do not")
    func replayUnreleased() throws {
        let path = Self.temporaryPath()
        let records = (0..<50).map { Self.record($0, payloadBytes: 1 + $0 * 37) }
        var tickets: [JournalTicket] = []
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
            #expect(journal.recovered.isEmpty)
            for record in records { tickets.append(try Self.ticket(journal.append(record, maxWait: 0))) }
            // Release every third record, and the first few (so the tail moves).
            for (index, ticket) in tickets.enumerated() where index % 3 == 0 || index < 4 { journal.release(ticket) }
        }
        let reopened = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
        let expected = records.enumerated().filter { !($0.offset % 3 == 0 || $0.offset < 4) }.map(\.element)
        #expect(reopened.recovered.map(\.record) == expected)
        #expect(reopened.statistics.liveRecords == expected.count)
        // New appends continue after the recovered ones and get higher sequence numbers.
        let next = try Self.ticket(reopened.append(Self.record(99), maxWait: 0))
        #expect(next > reopened.recovered.last!.ticket)
    }

    @Test("a journal keeps its identity across reopenings; another file has another")
    func identity() throws {
        let path = Self.temporaryPath()
        var first: UInt64 = 0
        do { first = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock()).identity }
        var again: UInt64 = 0
        do { again = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock()).identity }
        let other = try InboundJournal(path: Self.temporaryPath(), capacity: 1 << 16, clock: SystemGatewayClock()).identity
        #expect(first != 0 && first == again && other != first)
    }

    @Test("a record's traceparent survives reopening; one without stays without")
    func traceparentSurvives() throws {
        let path = Self.temporaryPath()
        var traced = Self.record(1)
        traced.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
            _ = try Self.ticket(journal.append(traced, maxWait: 0))
            _ = try Self.ticket(journal.append(Self.record(2), maxWait: 0))
        }
        let reopened = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
        #expect(reopened.recovered.map(\.record) == [traced, Self.record(2)])
    }

    @Test("a record cut short by a crash (no commit word) is not replayed, and what came before it is")
    func tornRecord() throws {
        let path = Self.temporaryPath()
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
            _ = try Self.ticket(journal.append(Self.record(1), maxWait: 0))
            _ = try Self.ticket(journal.append(Self.record(2), maxWait: 0))
        }
        // Overwrite the last 8 bytes of the second record (its commit word), as a crash in the
        // middle of writing it would leave them.
        let first = Self.record(1).journalSize
        let second = Self.record(2).journalSize
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(JournalLayout.fileHeaderSize + first + second - 8))
        handle.write(Data(repeating: 0, count: 8))
        try handle.close()
        let reopened = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
        #expect(reopened.recovered.map(\.record) == [Self.record(1)])
    }

    @Test("the ring wraps: space of released records is reused, and a full ring refuses after the wait")
    func wrapAndFull() throws {
        let path = Self.temporaryPath()
        let capacity = 1 << 15
        let journal = try InboundJournal(path: path, capacity: capacity, clock: SystemGatewayClock())
        let size = Self.record(0, payloadBytes: 1000).journalSize
        // Several laps of append-then-release.
        var live: [JournalTicket] = []
        for index in 0..<(4 * capacity / size) {
            live.append(try Self.ticket(journal.append(Self.record(index, payloadBytes: 1000), maxWait: 0)))
            if live.count > 5 { journal.release(live.removeFirst()) }
        }
        // Fill it up: with nothing released, an append must report full after its wait.
        var refused = false
        for index in 0..<(capacity / size + 2) {
            switch journal.append(Self.record(index, payloadBytes: 1000), maxWait: 0.01) {
            case .stored(let ticket, _): live.append(ticket)
            case .full: refused = true
            case .bypassed: Issue.record("bypassed before any wait timed out")
            case .failed(_, let reason): Issue.record("failed: \(reason)")
            case .closed: Issue.record("closed")
            }
            if refused { break }
        }
        #expect(refused)
        let statistics = journal.statistics
        #expect(statistics.usedBytes <= capacity)
        #expect(statistics.liveRecords == live.count)
        // Releasing everything frees the whole ring again.
        for ticket in live { journal.release(ticket) }
        #expect(journal.statistics.liveRecords == 0)
        #expect(journal.statistics.usedBytes == 0)
    }

    @Test("after wrapping, reopening recovers exactly the live records of the current lap")
    func reopenAfterWrap() throws {
        let path = Self.temporaryPath()
        let capacity = 1 << 15
        var expected: [JournalRecord] = []
        do {
            let journal = try InboundJournal(path: path, capacity: capacity, clock: SystemGatewayClock())
            var window: [(JournalTicket, JournalRecord)] = []
            for index in 0..<200 {
                let record = Self.record(index, payloadBytes: 300 + (index * 53) % 700)
                window.append((try Self.ticket(journal.append(record, maxWait: 0)), record))
                if window.count > 6 { journal.release(window.removeFirst().0) }
            }
            expected = window.map(\.1)
        }
        let reopened = try InboundJournal(path: path, capacity: capacity, clock: SystemGatewayClock())
        #expect(reopened.recovered.map(\.record) == expected)
    }

    @Test("a waiting producer gets room as soon as a record is released")
    func waitsForRoom() async throws {
        let journal = try InboundJournal(path: Self.temporaryPath(), capacity: 1 << 14, clock: SystemGatewayClock())
        var tickets: [JournalTicket] = []
        while case .stored(let ticket, _) = journal.append(Self.record(0, payloadBytes: 2000), maxWait: 0) { tickets.append(ticket) }
        let first = tickets[0]
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<InboundJournal.AppendOutcome, Never>) in
            // The same size as the records already there: releasing one makes exactly enough room.
            Thread { continuation.resume(returning: journal.append(Self.record(0, payloadBytes: 2000), maxWait: 30)) }.start()
            journal.release(first)
        }
        guard case .stored(_, let waited) = outcome else {
            Issue.record("expected the append to succeed once room was made, got \(outcome)")
            return
        }
        #expect(waited < 30)
    }

    @Test("one journal, one process: a second open is refused, and so is a file of another size")
    func exclusiveAndSized() throws {
        let path = Self.temporaryPath()
        let journal = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
        #expect(throws: JournalError.self) { try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock()) }
        _ = journal.statistics
        let other = Self.temporaryPath()
        _ = try InboundJournal(path: other, capacity: 1 << 16, clock: SystemGatewayClock())
        #expect(throws: JournalError.self) { try InboundJournal(path: other, capacity: 1 << 17, clock: SystemGatewayClock()) }
    }

    /// Appends `count` records through a small ring (many laps), releasing each a few records
    /// later and in a shuffled order, except those `keep` picks; returns the kept records in
    /// order and the highest ticket. Mixed sizes, or one size (`fixedSize`): then every lap's
    /// records start at the same offsets, so the head always meets a whole record of the
    /// previous lap, as with a device sending frames of one size.
    private static func churn(
        _ journal: InboundJournal, count: Int, seed: UInt64, fixedSize: Int? = nil, keep: (Int) -> Bool
    ) throws -> (kept: [JournalRecord], highest: JournalTicket) {
        var generator = SplitMix64(seed: seed)
        var window: [(index: Int, ticket: JournalTicket)] = []
        var kept: [JournalRecord] = []
        var highest = JournalTicket(sequence: 0)
        for index in 0..<count {
            let record = Self.record(index, payloadBytes: fixedSize ?? Int.random(in: 1...3000, using: &generator))
            let ticket = try Self.ticket(journal.append(record, maxWait: 0))
            highest = max(highest, ticket)
            if keep(index) { kept.append(record) } else { window.append((index, ticket)) }
            if window.count > 16 {
                window.shuffle(using: &generator)
                journal.release(window.removeLast().ticket)
            }
        }
        window.forEach { journal.release($0.ticket) }
        return (kept, highest)
    }

    @Test("a clean restart after many laps replays nothing, and sequence numbers continue across restarts")
    func cleanRestartAfterManyLaps() throws {
        let path = Self.temporaryPath()
        var highest = JournalTicket(sequence: 0)
        for run in 0..<3 {
            let journal = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
            // The issue's failure: stale records of earlier laps replayed after a clean stop.
            #expect(journal.recovered.count == 0, "run \(run) replayed \(journal.recovered.count) records that were done with")
            #expect(journal.openReport.stoppedAt == nil)
            let churned = try Self.churn(journal, count: 20_000, seed: UInt64(run + 1), fixedSize: run == 1 ? nil : 1000) { _ in false }
            #expect(churned.highest > highest)
            highest = churned.highest
            #expect(journal.statistics.liveRecords == 0)
        }
    }

    @Test("a crash after many laps replays exactly the unfinished records, in order", arguments: [nil, 1000])
    func crashAfterManyLapsReplaysExactlyTheUnfinished(fixedSize: Int?) throws {
        let path = Self.temporaryPath()
        var kept: [JournalRecord] = []
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
            // Keep (never release) a handful of records near the end, as a crash would leave them.
            kept = try Self.churn(journal, count: 20_000, seed: 7, fixedSize: fixedSize) { $0 >= 19_900 && $0 % 9 == 0 }.kept
        }
        let reopened = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
        #expect(reopened.recovered.map(\.record) == kept)
        #expect(reopened.openReport.corruptRecords == 0 && reopened.openReport.stoppedAt == nil)
    }

    /// Offset in the file of the record with index `index` among `records` appended to a new journal.
    private static func fileOffset(of index: Int, in records: [JournalRecord]) -> UInt64 {
        UInt64(JournalLayout.fileHeaderSize + records[..<index].reduce(0) { $0 + $1.journalSize })
    }

    private static func overwrite(_ path: String, at offset: UInt64, with bytes: [UInt8]) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: offset)
        handle.write(Data(bytes))
        try handle.close()
    }

    @Test("a record whose body fails its checksum (a torn page) is skipped and counted; the rest is replayed")
    func tornBodyIsSkipped() throws {
        let path = Self.temporaryPath()
        let records = (0..<6).map { Self.record($0, payloadBytes: 500) }
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
            for record in records { _ = try Self.ticket(journal.append(record, maxWait: 0)) }
        }
        // Flip payload bytes of the third record: its header and commit word stay whole.
        let payloadStart = Self.fileOffset(of: 2, in: records) + UInt64(JournalLayout.recordHeaderSize + records[2].topic.utf8.count + 100)
        try Self.overwrite(path, at: payloadStart, with: [0xDE, 0xAD, 0xBE, 0xEF])
        let reopened = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
        #expect(reopened.recovered.map(\.record) == records.enumerated().filter { $0.offset != 2 }.map(\.element))
        #expect(reopened.openReport.corruptRecords == 1)
        #expect(reopened.openReport.stoppedAt == nil)
    }

    @Test("a scan that meets a bad header stops there and says so; what came before is replayed")
    func badHeaderStopsTheScan() throws {
        let path = Self.temporaryPath()
        let records = (0..<6).map { Self.record($0, payloadBytes: 200) }
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
            for record in records { _ = try Self.ticket(journal.append(record, maxWait: 0)) }
        }
        // Change the fourth record's payload length field: its header check no longer matches.
        try Self.overwrite(path, at: Self.fileOffset(of: 3, in: records) + 12, with: [0x77])
        let reopened = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
        #expect(reopened.recovered.map(\.record) == Array(records[..<3]))
        let stopped = try #require(reopened.openReport.stoppedAt)
        #expect(stopped.reason.contains("check"))
        // New records go after the good ones and survive the next reopening.
        let next = try Self.ticket(reopened.append(Self.record(42), maxWait: 0))
        #expect(next > reopened.recovered.last!.ticket)
    }

    @Test("a closed journal is unlocked even while a copy of its descriptor lives (a spawned child's, until its exec)")
    func closedJournalIsUnlockedDespiteACopiedDescriptor() throws {
        let path = Self.temporaryPath()
        var copy: Int32 = -1
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
            try withExtendedLifetime(journal) { copy = try #require(Self.duplicateDescriptor(of: path)) }
        }
        defer { Glibc.close(copy) }
        // The lock belongs to the open file, which `copy` keeps open, as a child does between its
        // spawn and its exec: the journal's close must let go of the lock itself.
        #expect(throws: Never.self) { _ = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock()) }
    }

    /// A duplicate of this process's descriptor open on `path` (found in /proc/self/fd).
    private static func duplicateDescriptor(of path: String) -> Int32? {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for entry in entries {
            guard let descriptor = Int32(entry),
                let linked = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                linked == target
            else { continue }
            return dup(descriptor)
        }
        return nil
    }

    @Test("a header whose tail cannot be true (an erased block, a position between records) is refused, naming the file", arguments: [
        (JournalLayout.tailOffset, UInt64.max), (JournalLayout.tailOffset, UInt64(4_101)), (JournalLayout.tailSequenceOffset, UInt64.max - 1),
    ] as [(Int, UInt64)])
    func impossibleTailIsRefused(field: Int, value: UInt64) throws {
        let path = Self.temporaryPath()
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
            _ = try Self.ticket(journal.append(Self.record(1), maxWait: 0))
        }
        try Self.overwrite(path, at: UInt64(field), with: withUnsafeBytes(of: value.littleEndian) { Array($0) })
        #expect {
            _ = try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock())
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("damaged header")
        }
        // Moved away, a new journal starts empty at the same path.
        try FileManager.default.removeItem(atPath: path)
        #expect(try InboundJournal(path: path, capacity: 1 << 16, clock: SystemGatewayClock()).recovered.isEmpty)
    }

    @Test("seeded damage anywhere in the file: opening never traps, and replays only records that were written, in sequence")
    func seededDamageReplaysOnlyWrittenRecords() throws {
        var generator = SplitMix64(seed: 0xDA3A_6E00)
        let capacity = 1 << 16
        var opened = 0
        var replayed = 0
        for trial in 0..<300 {
            let path = Self.temporaryPath()
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            // About a lap and a half of records; a few stay live, as a crash leaves them.
            var written: [UInt64: JournalRecord] = [:]  // by sequence number (a skip record takes one too)
            do {
                let journal = try InboundJournal(path: path, capacity: capacity, clock: SystemGatewayClock())
                for index in 0..<Int.random(in: 20...120, using: &generator) {
                    let record = Self.record(trial * 1_000 + index, payloadBytes: Int.random(in: 1...1_500, using: &generator))
                    // The oldest live record holds the ring's tail: once it is full, stop.
                    guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { break }
                    written[ticket.sequence] = record
                    if Int.random(in: 0..<4, using: &generator) != 0 { journal.release(ticket) }
                }
            }
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            Self.damage(&bytes, using: &generator)
            try Data(bytes).write(to: URL(fileURLWithPath: path))

            // A refusal is an answer (the operator moves the file away); a trap would end the run.
            guard let reopened = try? InboundJournal(path: path, capacity: capacity, clock: SystemGatewayClock()) else { continue }
            opened += 1
            let recovered = reopened.recovered
            for (ticket, record) in recovered {
                // A record is replayed only as it was written, under its own sequence number.
                #expect(written[ticket.sequence] == record, "trial \(trial): replayed \(ticket) is not what was written")
            }
            #expect(zip(recovered, recovered.dropFirst()).allSatisfy { $0.ticket < $1.ticket }, "trial \(trial): replay out of order")
            replayed += recovered.count
            // And the damaged journal goes on taking records.
            let next = Self.record(-1)
            if case .stored(let ticket, _) = reopened.append(next, maxWait: 0) {
                #expect(recovered.allSatisfy { $0.ticket < ticket }, "trial \(trial): a new record's ticket is not after the replayed ones")
            }
        }
        // Most damage leaves the header readable, so most trials open and replay something.
        #expect(opened > 200 && replayed > 1_000, "opened \(opened) of 300, replayed \(replayed) records")
    }

    /// One kind of damage, chosen by `generator`: bytes flipped anywhere, a run of 0x00 or 0xFF
    /// (erased or zeroed blocks), a block copied from elsewhere, or the file header's tail
    /// position and sequence overwritten.
    private static func damage(_ bytes: inout [UInt8], using generator: inout SplitMix64) {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            }
        case 1:
            let start = Int.random(in: 0..<bytes.count, using: &generator)
            let end = min(bytes.count, start + Int.random(in: 1...4_096, using: &generator))
            let fill: UInt8 = Bool.random(using: &generator) ? 0xFF : 0x00
            for index in start..<end { bytes[index] = fill }
        case 2:
            let length = Int.random(in: 8...2_048, using: &generator)
            let from = Int.random(in: 0..<(bytes.count - length), using: &generator)
            let to = Int.random(in: 0..<(bytes.count - length), using: &generator)
            bytes.replaceSubrange(to..<(to + length), with: Array(bytes[from..<(from + length)]))
        default:
            let values: [UInt64] = [.max, .max - 7, 1 << 63, UInt64.random(in: 0...UInt64.max, using: &generator), UInt64.random(in: 0..<(1 << 20), using: &generator)]
            let offset = Bool.random(using: &generator) ? JournalLayout.tailOffset : JournalLayout.tailSequenceOffset
            let value = values[Int.random(in: 0..<values.count, using: &generator)]
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + 8), with: $0) }
        }
    }

    @Test("records written while other threads release (the write is outside the lock) replay exactly the unreleased ones")
    func concurrentReleases() throws {
        let path = Self.temporaryPath()
        let count = 20_000
        let keep: (Int) -> Bool = { $0 >= count - 100 && $0 % 7 == 0 }
        var kept: [JournalRecord] = []
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 18, clock: SystemGatewayClock())
            let feed = TicketFeed()
            // Two releasers, each releasing what it takes newest first: most releases are of a
            // record past the oldest (the state-byte write), while the producer writes the next.
            // Weak, and held only while releasing: a thread may still be running when the last
            // tickets are released, and the reopening below needs this journal gone (its lock).
            let releasers = (0..<2).map { _ in
                Thread { [weak journal] in
                    while let tickets = feed.take(upTo: 8) {
                        if let journal { tickets.reversed().forEach(journal.release) }
                        feed.released(tickets.count)
                    }
                }
            }
            releasers.forEach { $0.start() }
            var generator = SplitMix64(seed: 11)
            for index in 0..<count {
                let record = Self.record(index, payloadBytes: Int.random(in: 1...3000, using: &generator))
                // A small ring: the producer often waits for the releasers to make room.
                let ticket = try Self.ticket(journal.append(record, maxWait: 30))
                if keep(index) { kept.append(record) } else { feed.put(ticket) }
            }
            feed.finish()
            feed.waitUntilReleased()
            #expect(journal.statistics.liveRecords == kept.count)
        }
        let reopened = try InboundJournal(path: path, capacity: 1 << 18, clock: SystemGatewayClock())
        #expect(reopened.openReport.corruptRecords == 0 && reopened.openReport.stoppedAt == nil)
        #expect(reopened.recovered.map(\.record) == kept)
    }

    @Test("after a wait for room times out, appends bypass at once until the ring is half empty")
    func bypassUntilLowWater() throws {
        let capacity = 1 << 15
        let journal = try InboundJournal(path: Self.temporaryPath(), capacity: capacity, clock: SystemGatewayClock())
        var tickets: [JournalTicket] = []
        while case .stored(let ticket, _) = journal.append(Self.record(0, payloadBytes: 1000), maxWait: 0) { tickets.append(ticket) }
        // The ring is full: one append waits and gives up...
        guard case .full(let waited) = journal.append(Self.record(1, payloadBytes: 1000), maxWait: 0.05) else {
            Issue.record("expected a full journal")
            return
        }
        #expect(waited >= 0.05)
        #expect(journal.statistics.bypassing)
        // ...and the next ones do not wait again, even with a long allowed wait and some room made.
        journal.release(tickets.removeFirst())
        #expect(journal.append(Self.record(2, payloadBytes: 1000), maxWait: 30) == .bypassed)
        // Once at most half the ring is in use, appends are journaled again.
        while journal.statistics.usedBytes > journal.lowWaterBytes { journal.release(tickets.removeFirst()) }
        guard case .stored = journal.append(Self.record(3, payloadBytes: 1000), maxWait: 0) else {
            Issue.record("expected the append to be journaled below the low-water mark")
            return
        }
        #expect(!journal.statistics.bypassing)
    }
}

struct JournalTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}


/// Tickets handed from the producing test thread to releasing threads.
private final class TicketFeed: @unchecked Sendable {
    private let condition = MonotonicCondition()
    private var tickets: [JournalTicket] = []
    private var finished = false
    private var outstanding = 0

    func put(_ ticket: JournalTicket) {
        condition.withLock {
            tickets.append(ticket)
            condition.broadcast()
        }
    }

    /// Up to `limit` tickets, oldest first; nil once finished and empty.
    func take(upTo limit: Int) -> [JournalTicket]? {
        condition.withLock {
            while tickets.isEmpty && !finished { condition.wait() }
            guard !tickets.isEmpty else { return nil }
            let batch = Array(tickets.prefix(limit))
            tickets.removeFirst(batch.count)
            outstanding += batch.count
            return batch
        }
    }

    /// `count` taken tickets were released.
    func released(_ count: Int) {
        condition.withLock {
            outstanding -= count
            condition.broadcast()
        }
    }

    func finish() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    /// Waits until every ticket put was taken and released.
    func waitUntilReleased() {
        condition.withLock {
            while !tickets.isEmpty || outstanding > 0 { condition.wait() }
        }
    }
}
