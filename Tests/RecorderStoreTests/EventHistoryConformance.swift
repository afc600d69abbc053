import Foundation
import RecorderStore
import TelemetryCore
import Testing

/// What every event history backend must answer alike (``EventHistoryStoring``): one set of
/// checks, run by ``SQLiteEventHistoryTests`` and ``PostgresEventHistoryTests``. Times straddle
/// day boundaries, so PostgreSQL's daily partitions are crossed everywhere.
enum EventHistoryConformance {
    static let watch = DeviceID("watch-hist-1")!
    static let other = DeviceID("watch-hist-2")!
    /// A day boundary (Unix seconds): 2026-11-23 00:00:00 UTC.
    static let day = 1_795_392_000.0

    /// A row of `device` at `time` with a dive-like payload.
    static func row(_ device: DeviceID = watch, family: String = "submersion/dive", at time: Double, id: String) -> EventHistoryRow {
        EventHistoryRow(
            device: device, family: family, eventTime: time, eventId: id,
            payload: Array(#"{"deviceId":"\#(device.rawValue)","eventId":"\#(id)","maxDepth":20.02,"timeInState":{"submergedDeep":169.334},"date":\#(time)}"#.utf8))
    }

    /// Ids of `n` rows: 16 hex digits each, distinct.
    static func id(_ n: Int) -> String { String(format: "%016x", 0xA000_0000 + n) }

    /// Every event of a device read page by page, newest first; asserts each page but the last is full.
    static func allEvents(_ store: any EventHistoryStoring, _ device: DeviceID, family: String? = nil, from: Double = -.infinity, to: Double = .infinity, page: Int)
        async throws -> [EventHistoryRow]
    {
        var all: [EventHistoryRow] = []
        var cursor: EventHistoryCursor?
        var short = false
        while true {
            let rows = try await store.events(of: device, family: family, from: from, to: to, after: cursor, limit: page)
            if rows.isEmpty { break }
            #expect(!short, "only the last page may be short")
            short = rows.count < page
            all += rows
            cursor = rows.last?.cursor
        }
        return all
    }

    /// Rows written twice (a replay) are stored once; the payload and time come back as given.
    static func deduplicates(_ store: any EventHistoryStoring) async throws {
        let rows = (0..<50).map { row(at: day - 25 + Double($0) + 0.123456, id: id($0)) }
        #expect(try await store.insertEvents(rows) == 50)
        #expect(try await store.insertEvents(Array(rows[10..<30]) + [row(at: day + 40, id: id(99))]) == 1)
        let stored = try await allEvents(store, watch, page: 1000)
        #expect(stored.count == 51)
        let first = try #require(stored.last)
        #expect(first.eventTime == rows[0].eventTime)
        #expect(first.eventId == rows[0].eventId)
        let payload = try JSONSerialization.jsonObject(with: Data(first.payload)) as? [String: Any]
        #expect(payload?["eventId"] as? String == rows[0].eventId)
        #expect(payload?["maxDepth"] as? Double == 20.02)
    }

    /// Pages run newest first across the day boundary, without gaps or repeats, filtered by
    /// device, family and time range; two events at the same time are ordered by id.
    static func pagesAcrossDays(_ store: any EventHistoryStoring) async throws {
        var rows: [EventHistoryRow] = []
        for n in 0..<120 {
            rows.append(row(family: n % 3 == 0 ? "swing" : "submersion/dive", at: day - 60 + Double(n / 2), id: id(n)))
        }
        rows.append(row(other, at: day, id: id(500)))
        _ = try await store.insertEvents(rows)
        let all = try await allEvents(store, watch, page: 7)
        let expected = rows.filter { $0.device == watch }.sorted { ($0.eventTime, $0.eventId) > ($1.eventTime, $1.eventId) }
        #expect(all.map(\.eventId) == expected.map(\.eventId))
        let swings = try await allEvents(store, watch, family: "swing", page: 9)
        #expect(swings.map(\.eventId) == expected.filter { $0.family == "swing" }.map(\.eventId))
        #expect(swings.allSatisfy { $0.family == "swing" })
        let ranged = try await allEvents(store, watch, from: day - 10, to: day + 10, page: 5)
        #expect(ranged.map(\.eventId) == expected.filter { $0.eventTime >= day - 10 && $0.eventTime <= day + 10 }.map(\.eventId))
        #expect(try await allEvents(store, other, page: 10).map(\.eventId) == [id(500)])
        #expect(try await allEvents(store, DeviceID("nobody")!, page: 10).isEmpty)
    }

    /// Pruning removes everything before the cut-off from every answer, and later inserts of
    /// newer events go on.
    static func prunes(_ store: any EventHistoryStoring) async throws {
        var rows: [EventHistoryRow] = []
        for dayIndex in 0..<4 {
            for n in 0..<5 {
                let time: Double = day + Double(dayIndex) * 86_400 + Double(n) * 3600
                rows.append(row(at: time, id: id(dayIndex * 10 + n)))
            }
        }
        _ = try await store.insertEvents(rows)
        let cutoff = day + 2 * 86_400 + 2 * 3600 + 1  // inside the third day
        try await store.pruneEvents(before: cutoff)
        let left = try await allEvents(store, watch, page: 100)
        let kept: [String] = rows.filter { $0.eventTime >= cutoff }.reversed().map { $0.eventId }
        #expect(left.map { $0.eventId } == kept)
        #expect(try await store.insertEvents([row(at: day + 4 * 86_400, id: id(77))]) == 1)
        #expect(try await allEvents(store, watch, page: 100).count == left.count + 1)
    }
}
