import Foundation
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
            let journal = try InboundJournal(path: path, capacity: 1 << 20)
            #expect(journal.recovered.isEmpty)
            for record in records { tickets.append(try Self.ticket(journal.append(record, maxWait: 0))) }
            // Release every third record, and the first few (so the tail moves).
            for (index, ticket) in tickets.enumerated() where index % 3 == 0 || index < 4 { journal.release(ticket) }
        }
        let reopened = try InboundJournal(path: path, capacity: 1 << 20)
        let expected = records.enumerated().filter { !($0.offset % 3 == 0 || $0.offset < 4) }.map(\.element)
        #expect(reopened.recovered.map(\.record) == expected)
        #expect(reopened.statistics.liveRecords == expected.count)
        // New appends continue after the recovered ones and get higher sequence numbers.
        let next = try Self.ticket(reopened.append(Self.record(99), maxWait: 0))
        #expect(next > reopened.recovered.last!.ticket)
    }

    @Test("a record cut short by a crash (no commit word) is not replayed, and what came before it is")
    func tornRecord() throws {
        let path = Self.temporaryPath()
        do {
            let journal = try InboundJournal(path: path, capacity: 1 << 16)
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
        let reopened = try InboundJournal(path: path, capacity: 1 << 16)
        #expect(reopened.recovered.map(\.record) == [Self.record(1)])
    }

    @Test("the ring wraps: space of released records is reused, and a full ring refuses after the wait")
    func wrapAndFull() throws {
        let path = Self.temporaryPath()
        let capacity = 1 << 15
        let journal = try InboundJournal(path: path, capacity: capacity)
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
            let journal = try InboundJournal(path: path, capacity: capacity)
            var window: [(JournalTicket, JournalRecord)] = []
            for index in 0..<200 {
                let record = Self.record(index, payloadBytes: 300 + (index * 53) % 700)
                window.append((try Self.ticket(journal.append(record, maxWait: 0)), record))
                if window.count > 6 { journal.release(window.removeFirst().0) }
            }
            expected = window.map(\.1)
        }
        let reopened = try InboundJournal(path: path, capacity: capacity)
        #expect(reopened.recovered.map(\.record) == expected)
    }

    @Test("a waiting producer gets room as soon as a record is released")
    func waitsForRoom() async throws {
        let journal = try InboundJournal(path: Self.temporaryPath(), capacity: 1 << 14)
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
        let journal = try InboundJournal(path: path, capacity: 1 << 16)
        #expect(throws: JournalError.self) { try InboundJournal(path: path, capacity: 1 << 16) }
        _ = journal.statistics
        let other = Self.temporaryPath()
        _ = try InboundJournal(path: other, capacity: 1 << 16)
        #expect(throws: JournalError.self) { try InboundJournal(path: other, capacity: 1 << 17) }
    }
}

struct JournalTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
