@testable import GatewayJournal
import Foundation
import Locking
import Testing

@testable import TelemetryGateway

/// The journal's high-water trigger: which shards are asked for an early snapshot write, how
/// often, and the journal asking them as its ring fills (docs/reliability.md, "What holds a
/// record").
@Suite("Journal pressure: the shards holding the tail write early")
struct JournalPressureTests {
    private static let start = SuspendingClock.now

    @Test("past the high-water mark only, at three quarters of the ring")
    func highWaterMark() {
        let pressure = JournalPressure(capacity: 1_000_000)
        #expect(pressure.highWaterBytes == 750_000)
        #expect(!pressure.isPressed(usedBytes: 750_000))
        #expect(pressure.isPressed(usedBytes: 750_001))
    }

    @Test("each tail shard is asked once until it is relieved, however often the ring is pressed")
    func oneOutstandingRequestPerShard() {
        var pressure = JournalPressure(capacity: 1 << 20)
        #expect(pressure.shardsToAsk(tailShards: [2, 2, 0, 2], now: Self.start) == [2, 0])
        // Much later, still outstanding: not asked again.
        #expect(pressure.shardsToAsk(tailShards: [2, 0, 1], now: Self.start + .seconds(5)) == [1])
        pressure.relieved(2)
        #expect(pressure.shardsToAsk(tailShards: [2, 0], now: Self.start + .seconds(6)) == [2])
    }

    @Test("a relieved shard is asked again no sooner than the minimum spacing")
    func spacing() {
        var pressure = JournalPressure(capacity: 1 << 20)
        #expect(pressure.shardsToAsk(tailShards: [3], now: Self.start) == [3])
        pressure.relieved(3)
        let justBefore = Self.start + JournalPressure.minimumSpacing - .milliseconds(1)
        #expect(pressure.shardsToAsk(tailShards: [3], now: justBefore).isEmpty)
        #expect(pressure.shardsToAsk(tailShards: [3], now: Self.start + JournalPressure.minimumSpacing) == [3])
    }

    @Test("a flood of 10,000 presses over one second asks a shard at most ten times")
    func floodIsRateLimited() {
        var pressure = JournalPressure(capacity: 1 << 20)
        var asked = 0
        for step in 0..<10_000 {
            let now = Self.start + .microseconds(step * 100)
            asked += pressure.shardsToAsk(tailShards: [0], now: now).count
            // The worker answers at once every time.
            pressure.relieved(0)
        }
        #expect(asked == 10)
    }

    // MARK: The journal asking

    private static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wg-pressure-\(UUID().uuidString)/journal.bin").path
    }

    /// A record of about 200 bytes in the ring.
    private static func record(_ index: Int, receivedAt: Double = 1_700_000_000) -> JournalRecord {
        JournalRecord(
            topic: "wearables/watch-\(index)/status", payload: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 100),
            contentType: nil, retained: false, receivedAt: receivedAt)
    }

    private static func ticket(_ outcome: InboundJournal.AppendOutcome) throws -> JournalTicket {
        guard case .stored(let ticket, _) = outcome else { throw JournalTestFailure("append was \(outcome)") }
        return ticket
    }

    @Test("filling the ring asks only the shards whose records are live at its tail, once past three quarters")
    func journalAsksTheTailsShards() throws {
        let asked = LockedState<[Int]>([])
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let journal = try InboundJournal(path: Self.temporaryPath(), capacity: 1 << 20, clock: clock) { shard in asked.withLock { $0.append(shard) } }
        // Shard 1's records are released as they go; shard 0 holds every fourth, shard 5 the others'.
        var index = 0
        while Double(journal.statistics.usedBytes) < Double(journal.capacity) * JournalPressure.highWaterFraction - 400 {
            let shard = index % 4 == 0 ? 0 : (index % 4 == 1 ? 1 : 5)
            let ticket = try Self.ticket(journal.append(Self.record(index), shard: shard, maxWait: 0))
            if shard == 1 { journal.release(ticket) }
            index += 1
        }
        #expect(asked.withLock { $0 }.isEmpty, "asked below the high-water mark")
        for _ in 0..<4 {
            _ = try Self.ticket(journal.append(Self.record(index), shard: 7, maxWait: 0))
            index += 1
        }
        // Shard 7's records are not at the tail (the 256 oldest live records of these 5,000 are 0's and 5's).
        #expect(asked.withLock { $0 } == [0, 5])
        // Outstanding: appending more asks nobody again until a shard answers.
        _ = try Self.ticket(journal.append(Self.record(index), shard: 0, maxWait: 0))
        #expect(asked.withLock { $0 } == [0, 5])
        journal.relieved(shard: 0)
        clock.advance(by: 0.2)
        _ = try Self.ticket(journal.append(Self.record(index + 1), shard: 0, maxWait: 0))
        #expect(asked.withLock { $0 } == [0, 5, 0])
    }

    @Test("a producer waiting for room asks the shard whose records reach the tail as the tail moves")
    func waitingProducerAsksTheNextTailShard() throws {
        let asked = LockedState<[Int]>([])
        let journal = try InboundJournal(path: Self.temporaryPath(), capacity: 1 << 16, clock: SystemGatewayClock()) { shard in asked.withLock { $0.append(shard) } }
        func small(_ index: Int) -> JournalRecord {
            JournalRecord(topic: "wearables/w-\(index)/status", payload: [], contentType: nil, retained: false, receivedAt: 1_700_000_000)
        }
        // 300 small records of shard 0 at the tail (more than the 256 examined), then shard 1's
        // until the ring is full.
        let shardZero = try (0..<300).map { try Self.ticket(journal.append(small($0), shard: 0, maxWait: 0)) }
        var shardOne: [JournalTicket] = []
        while case .stored(let ticket, _) = journal.append(small(1_000 + shardOne.count), shard: 1, maxWait: 0) { shardOne.append(ticket) }
        #expect(asked.withLock { $0 } == [0], "only shard 0's records are among the tail's")
        // A 30 KB record waits for room; shard 0's records go, the tail reaches shard 1's.
        let outcome = LockedState<InboundJournal.AppendOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let waiter = Thread {
            let big = JournalRecord(
                topic: "wearables/big/status", payload: [UInt8](repeating: 1, count: 30_000), contentType: nil, retained: false, receivedAt: 1_700_000_000)
            outcome.withLock { $0 = journal.append(big, shard: 2, maxWait: 20) }
            done.signal()
        }
        waiter.start()
        for ticket in shardZero { journal.release(ticket) }
        let deadline = ContinuousClock.now + .seconds(10)
        while !asked.withLock({ $0.contains(1) }) && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(asked.withLock { $0 } == [0, 1], "the waiting producer asked shard 1 once its records reached the tail")
        for ticket in shardOne { journal.release(ticket) }
        #expect(done.wait(timeout: .now() + 20) == .success)
        guard case .stored(_, let waited)? = outcome.withLock({ $0 }) else {
            Issue.record("the waiting append ended with \(String(describing: outcome.withLock { $0 }))")
            return
        }
        #expect(waited > 0)
    }

    @Test("the oldest live record's age, on the journal's clock; 0 when nothing is live")
    func oldestRecordAge() throws {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let journal = try InboundJournal(path: Self.temporaryPath(), capacity: 1 << 20, clock: clock)
        #expect(journal.statistics.oldestRecordAge == 0)
        let first = try Self.ticket(journal.append(Self.record(0, receivedAt: 1_700_000_000), shard: 0, maxWait: 0))
        let second = try Self.ticket(journal.append(Self.record(1, receivedAt: 1_700_000_002), shard: 0, maxWait: 0))
        clock.advance(by: 5)
        #expect(journal.statistics.oldestRecordAge == 5)
        // Releasing a record behind the tail changes nothing; releasing the tail's does.
        journal.release(second)
        #expect(journal.statistics.oldestRecordAge == 5)
        journal.release(first)
        #expect(journal.statistics.oldestRecordAge == 0)
        _ = try Self.ticket(journal.append(Self.record(2, receivedAt: 1_700_000_004), shard: 0, maxWait: 0))
        #expect(journal.statistics.oldestRecordAge == 1)
    }
}
