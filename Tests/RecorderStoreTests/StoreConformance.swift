import Foundation
import RecorderStore
import TelemetryCore
import Testing

/// What every store backend must answer alike (``RecorderStoring``, ``DeviceSnapshotStoring``):
/// one set of checks, run by ``SQLiteStoreConformanceTests`` and ``PostgresStoreConformanceTests``.
/// Dates straddle hour boundaries, so PostgreSQL's hourly partitions are crossed everywhere.
enum StoreConformance {
    static let watch = DeviceID("watch-conf-1")!
    static let other = DeviceID("watch-conf-2")!
    /// An hour boundary (Unix seconds): 2026-11-23 09:00:00 UTC.
    static let hour = 1_795_424_400.0

    /// `count` samples at 50 Hz from `start`, sample `first` on; full-precision accelerations.
    static func chunk(identifier: UInt64, start: Double, count: Int, first index: Int = 0) -> RecordedAccelerometerChunk {
        let samples = (index..<(index + count)).map { i in
            let date = start + Double(i) * 0.02
            return RecordedAccelerometerSample(
                timestamp: date - hour + 1_000.123456789, startDate: date,
                acceleration: Vector3(x: sin(Double(i) * 0.1) * 0.731_234_567_89, y: -0.5 + Double(i % 7) * 1e-9, z: 0.861_111_111_111_1))
        }
        return RecordedAccelerometerChunk(identifier: identifier, samples: samples)
    }

    /// Every sample of a device in `[from, to]`, read page by page; asserts each page but the last is full.
    static func allSamples(_ store: any RecorderStoring, _ device: DeviceID, from: Double, to: Double, page: Int) async throws -> [StoredRecorderSample] {
        var all: [StoredRecorderSample] = []
        var cursor: StoredRecorderSample?
        var short = false
        while true {
            let samples = try await store.samples(of: device, from: from, to: to, after: cursor, limit: page)
            if samples.isEmpty { break }
            #expect(!short, "only the last page may be short")
            short = samples.count < page
            all += samples
            cursor = samples.last
        }
        return all
    }

    // MARK: Recorder

    static func deduplicates(_ store: any RecorderStoring) async throws {
        // 150 samples from 2 s before the hour: they straddle it.
        let start = hour - 2
        #expect(try await store.insert(chunk(identifier: 7, start: start, count: 150), device: watch) == RecorderInsertOutcome(inserted: 150, duplicates: 0))
        #expect(try await store.insert(chunk(identifier: 7, start: start, count: 150), device: watch) == RecorderInsertOutcome(inserted: 0, duplicates: 150))
        let overlapping = try await store.insert(chunk(identifier: 7, start: start, count: 150, first: 100), device: watch)
        #expect(overlapping == RecorderInsertOutcome(inserted: 100, duplicates: 50))
        // The same timestamps in another recording batch are other samples.
        #expect(try await store.insert(chunk(identifier: 8, start: start, count: 10), device: watch).inserted == 10)
        // A chunk repeating a sample within itself stores it once.
        var repeated = chunk(identifier: 9, start: start, count: 5)
        repeated.samples.append(repeated.samples[2])
        #expect(try await store.insert(repeated, device: watch) == RecorderInsertOutcome(inserted: 5, duplicates: 1))
        #expect(try await store.statistics().samples == 265)
        #expect(try await store.statistics().devices == 1)
    }

    static func pagesAcrossHours(_ store: any RecorderStoring) async throws {
        // 90 s of one batch across the hour, inserted out of order; another device interleaves;
        // two more batches overlap it in time (identifier order breaks the date ties).
        let start = hour - 30
        for part in [2, 0, 1] {
            _ = try await store.insert(chunk(identifier: 2, start: start, count: 1500, first: part * 1500), device: watch)
        }
        _ = try await store.insert(chunk(identifier: 1, start: start, count: 400, first: 1400), device: watch)
        _ = try await store.insert(chunk(identifier: UInt64.max - 3, start: start, count: 400, first: 1400), device: watch)
        _ = try await store.insert(chunk(identifier: 2, start: start, count: 4500), device: other)
        let from = start + 100 * 0.02
        let to = start + 3999 * 0.02
        let all = try await allSamples(store, watch, from: from, to: to, page: 128)
        #expect(all.count == 3900 + 400 + 400)
        #expect(all.first?.sample.startDate == from)
        #expect(all.last?.sample.startDate == to)
        let ordered = zip(all, all.dropFirst()).allSatisfy { a, b in
            (a.sample.startDate, Int64(bitPattern: a.identifier), a.sample.timestamp) < (b.sample.startDate, Int64(bitPattern: b.identifier), b.sample.timestamp)
        }
        #expect(ordered, "(startDate, identifier as signed 64-bit, timestamp) order")
        // Values come back bit for bit.
        let batch = all.filter { $0.identifier == 2 }.map(\.sample)
        #expect(batch == chunk(identifier: 2, start: start, count: 3900, first: 100).samples)
        #expect(all.contains { $0.identifier == UInt64.max - 3 })
        // An empty range, and a device with nothing stored.
        #expect(try await store.samples(of: watch, from: hour + 7200, to: hour + 9000, after: nil, limit: 10).isEmpty)
        #expect(try await store.samples(of: DeviceID("watch-none")!, from: 0, to: 4e9, after: nil, limit: 10).isEmpty)
    }

    /// Cut-offs on hour boundaries: the counts agree too (PostgreSQL drops whole hours).
    static func prunesWholeHours(_ store: any RecorderStoring) async throws {
        // Two hours of the watch (90,000 samples at 50 Hz would be slow: 10 s per hour edge).
        _ = try await store.insert(chunk(identifier: 1, start: hour - 10, count: 1000), device: watch)  // 10 s before, 10 s after
        _ = try await store.insert(chunk(identifier: 1, start: hour - 5, count: 500), device: other)  // 5 s before, 5 s after
        let byAge = try await store.prune(before: hour, maximumSamples: 1_000_000)
        #expect(byAge == outcome(expired: 500 + 250, overCapacity: 0))
        #expect(try await store.statistics().samples == 750)
        let byCap = try await store.prune(before: hour, maximumSamples: 600)
        #expect(byCap.overCapacity == 150)
        let remaining = try await store.samples(of: watch, from: 0, to: 4e9, after: nil, limit: 10_000)
        #expect(remaining.map(\.sample) == Array(chunk(identifier: 1, start: hour - 10, count: 1000).samples[650...]))
        #expect(try await store.samples(of: other, from: 0, to: 4e9, after: nil, limit: 10_000).count == 250)
        #expect(try await store.statistics().samples == 600)
    }

    /// A cut-off inside an hour: no answer holds a sample before it, whatever is still on disk.
    static func prunesInsideAnHour(_ store: any RecorderStoring) async throws {
        let stored = chunk(identifier: 1, start: hour + 60, count: 3000)  // one minute from hour + 60
        _ = try await store.insert(stored, device: watch)
        try await store.setNextTremorMinute(hour + 60, device: watch)
        _ = try await store.prune(before: hour + 90, maximumSamples: 1_000_000)
        let kept = stored.samples.filter { $0.startDate >= hour + 90 }
        #expect(try await allSamples(store, watch, from: hour, to: hour + 3600, page: 1000).map(\.sample) == kept)
        #expect(try await store.samples(of: watch, from: hour, before: hour + 120) == kept)
        #expect(try await store.deviceState(of: watch)?.newestSampleDate == kept.last?.startDate)
        #expect(try await store.minutesWithData(of: watch, from: hour, before: hour + 3600) == [hour + 60])
        #expect(try await store.samples(of: watch, from: hour, to: hour + 89.99, after: nil, limit: 10).isEmpty)
    }

    static func tremorMinutesAndState(_ store: any RecorderStoring) async throws {
        // Minutes with data across the hour: 58th, 59th (empty), 0th of the next hour, 10th.
        _ = try await store.insert(chunk(identifier: 1, start: hour - 120, count: 10), device: watch)
        _ = try await store.insert(chunk(identifier: 1, start: hour + 5, count: 10), device: watch)
        _ = try await store.insert(chunk(identifier: 1, start: hour + 600, count: 10), device: watch)
        #expect(try await store.minutesWithData(of: watch, from: hour - 3600, before: hour + 3600) == [hour - 120, hour, hour + 600])
        #expect(try await store.minutesWithData(of: watch, from: hour - 60, before: hour + 600) == [hour])
        let minute = try await store.samples(of: watch, from: hour, before: hour + 60)
        #expect(minute == chunk(identifier: 1, start: hour + 5, count: 10).samples)
        let newest = chunk(identifier: 1, start: hour + 600, count: 10).samples.last?.startDate
        #expect(try await store.deviceState(of: watch) == RecorderDeviceState(newestSampleDate: newest, nextTremorMinute: nil))
        try await store.setNextTremorMinute(hour + 60, device: watch)
        #expect(try await store.deviceState(of: watch)?.nextTremorMinute == hour + 60)
        #expect(try await store.deviceState(of: other) == nil)
        let statistics = try await store.statistics()
        #expect(statistics.samples == 30 && statistics.devices == 1)
        #expect(statistics.fileBytes > 0)
    }

    static func outcome(expired: Int, overCapacity: Int) -> RecorderPruneOutcome {
        var outcome = RecorderPruneOutcome()
        outcome.expired = expired
        outcome.overCapacity = overCapacity
        return outcome
    }

    // MARK: Device snapshots

    static func snapshot(_ lastSeen: Double) -> DeviceSnapshot {
        DeviceSnapshot(lastSeen: lastSeen, access: nil, connection: nil, derivations: nil)
    }

    /// Saves, loads and prunes; `listsDevices` false for a shared store, which lists devices
    /// per ownership partition instead (checked by its own tests).
    static func snapshotsSaveAndLoad(_ store: any DeviceSnapshotStoring, listsDevices: Bool = true) async throws {
        #expect(try await store.snapshot(of: watch) == nil)
        try await store.save([(watch, snapshot(1_000)), (other, snapshot(2_000))])
        try await store.save([(watch, snapshot(1_500))])
        #expect(try await store.snapshot(of: watch)?.lastSeen == 1_500)
        #expect(Set(try await store.devices()) == (listsDevices ? [watch, other] : []))
        #expect(try await store.prune(lastSeenBefore: 1_600) == 1)
        #expect(try await store.devices() == (listsDevices ? [other] : []))
        #expect(try await store.snapshot(of: watch) == nil)
        #expect(try await store.snapshot(of: other)?.lastSeen == 2_000)
    }
}
