import Foundation
import RecorderStore
import TelemetryCore
import Testing

/// A chunk of `count` samples at 50 Hz from `start` (wall clock), boot 1,000 s before it.
private func chunk(identifier: UInt64, start: Double, count: Int, first index: Int = 0) -> RecordedAccelerometerChunk {
    let samples = (index..<(index + count)).map { i in
        let date = start + Double(i) * 0.02
        return RecordedAccelerometerSample(
            timestamp: date - 1_700_000_000 + 1_000, startDate: date, acceleration: Vector3(x: Double(i) * 0.001, y: -0.5, z: 0.86))
    }
    return RecordedAccelerometerChunk(identifier: identifier, samples: samples)
}

/// A fresh database file in a temporary directory (which does not exist yet: the store creates it).
private func temporaryPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("recorder-\(UUID().uuidString)/data/recorder.sqlite").path
}

private let watch = DeviceID("watch-rec-1")!
private let other = DeviceID("watch-rec-2")!

@Suite("Recorder store: de-duplication, ordered pages, pruning, persistence")
struct RecorderDatabaseTests {
    @Test("a duplicated and an overlapping chunk store each sample once")
    func deduplicates() async throws {
        let database = try RecorderDatabase(path: temporaryPath())
        let first = try await database.insert(chunk(identifier: 7, start: 1_700_000_000, count: 150), device: watch)
        #expect(first == RecorderInsertOutcome(inserted: 150, duplicates: 0))
        let again = try await database.insert(chunk(identifier: 7, start: 1_700_000_000, count: 150), device: watch)
        #expect(again == RecorderInsertOutcome(inserted: 0, duplicates: 150))
        // Samples 100..<250: 50 already stored.
        let overlapping = try await database.insert(chunk(identifier: 7, start: 1_700_000_000, count: 150, first: 100), device: watch)
        #expect(overlapping == RecorderInsertOutcome(inserted: 100, duplicates: 50))
        // The same timestamps in another recording batch are other samples.
        let otherBatch = try await database.insert(chunk(identifier: 8, start: 1_700_000_000, count: 10), device: watch)
        #expect(otherBatch.inserted == 10)
        #expect(try await database.statistics().samples == 260)
    }

    @Test("pages of a range come in (startDate, identifier, timestamp) order, inclusive at both ends, per device")
    func pagesInOrder() async throws {
        let database = try RecorderDatabase(path: temporaryPath())
        // Inserted out of order; another device's samples interleave in time.
        _ = try await database.insert(chunk(identifier: 2, start: 1_700_000_000, count: 500, first: 500), device: watch)
        _ = try await database.insert(chunk(identifier: 2, start: 1_700_000_000, count: 500), device: watch)
        _ = try await database.insert(chunk(identifier: 2, start: 1_700_000_000, count: 1000), device: other)
        let from = 1_700_000_000 + 100 * 0.02
        let to = 1_700_000_000 + 899 * 0.02
        var pages: [[StoredRecorderSample]] = []
        var cursor: StoredRecorderSample?
        while true {
            let page = try await database.samples(of: watch, from: from, to: to, after: cursor, limit: 128)
            if page.isEmpty { break }
            pages.append(page)
            cursor = page.last
        }
        let all = pages.flatMap { $0 }
        #expect(all.count == 800)
        #expect(pages.dropLast().allSatisfy { $0.count == 128 })
        #expect(all.first?.sample.startDate == from)
        #expect(all.last?.sample.startDate == to)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.sample.startDate < $1.sample.startDate })
        #expect(all.allSatisfy { $0.identifier == 2 })
        // The stored values come back bit for bit.
        let expected = chunk(identifier: 2, start: 1_700_000_000, count: 800, first: 100).samples
        #expect(all.map(\.sample) == expected)
    }

    @Test("pruning drops samples older than the window, then the fullest device's oldest over the cap")
    func prunes() async throws {
        let database = try RecorderDatabase(path: temporaryPath())
        _ = try await database.insert(chunk(identifier: 1, start: 1_700_000_000, count: 3000), device: watch)  // 60 s
        _ = try await database.insert(chunk(identifier: 1, start: 1_700_000_000, count: 1000), device: other)  // 20 s
        let byAge = try await database.prune(before: 1_700_000_010, maximumSamples: 1_000_000)
        #expect(byAge.expired == 1000)  // 10 s of each device
        #expect(byAge.overCapacity == 0)
        #expect(try await database.statistics().samples == 3000)
        let byCap = try await database.prune(before: 0, maximumSamples: 2000)
        #expect(byCap.overCapacity == 1000)
        let remaining = try await database.samples(of: watch, from: 0, to: 2_000_000_000, limit: 10_000)
        #expect(remaining.count == 1500)
        #expect(remaining.first?.sample.startDate == 1_700_000_000 + 1500 * 0.02)
        #expect(try await database.samples(of: other, from: 0, to: 2_000_000_000, limit: 10_000).count == 500)
    }

    @Test("the stored window and the tremor schedule survive reopening the file")
    func persists() async throws {
        let path = temporaryPath()
        do {
            let database = try RecorderDatabase(path: path)
            _ = try await database.insert(chunk(identifier: 3, start: 1_700_000_000, count: 200), device: watch)
            try await database.setNextTremorMinute(1_699_999_980, device: watch)
        }
        let reopened = try RecorderDatabase(path: path)
        #expect(try await reopened.samples(of: watch, from: 0, to: 2_000_000_000, limit: 1000).count == 200)
        let state = try await reopened.deviceState(of: watch)
        #expect(state?.nextTremorMinute == 1_699_999_980)
        #expect(state?.newestSampleDate == 1_700_000_000 + 199 * 0.02)
        #expect(try await reopened.deviceState(of: other) == nil)
    }

    @Test("minutes with data skip empty minutes")
    func minutesWithData() async throws {
        let database = try RecorderDatabase(path: temporaryPath())
        let base = 1_700_000_040.0  // a minute boundary
        _ = try await database.insert(chunk(identifier: 1, start: base, count: 10), device: watch)
        _ = try await database.insert(chunk(identifier: 1, start: base + 600, count: 10), device: watch)
        let minutes = try await database.minutesWithData(of: watch, from: base, before: base + 3600)
        #expect(minutes == [base, base + 600])
    }
}
