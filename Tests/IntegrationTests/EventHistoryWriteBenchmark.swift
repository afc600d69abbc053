import Foundation
import Logging
import PostgresNIO
@testable import PostgresStore
import PostgresTestSupport
import Prometheus
import RecorderStore
import TelemetryCore
import Testing

@testable import TelemetryGateway

/// The event history's write cost (docs/history.md, *Measured*): `WG_HISTORY_BENCHMARK_EVENTS`
/// events of the contract's shapes (dive summaries, swings, depth states, presence changes) go
/// through the workers' call (``BufferedEventHistory/record(_:receivedAt:holding:)``) and are
/// written by ``EventHistoryService/writeBatch(_:)``, the service's own path, into PostgreSQL
/// (`WG_TEST_POSTGRES_URL`) and into SQLite. Prints one JSON line per store. Runs only when
/// asked: `bash Benchmarks/history-write.sh`.
@Suite(
    "Event history write benchmark",
    .enabled(if: ProcessInfo.processInfo.environment["WG_HISTORY_BENCHMARK_EVENTS"] != nil && TestPostgres.url != nil))
struct EventHistoryWriteBenchmark {
    static let events = Int(ProcessInfo.processInfo.environment["WG_HISTORY_BENCHMARK_EVENTS"] ?? "") ?? 100_000
    static let scheme = TopicScheme()

    /// Event `n` of 100 devices, dated one second apart from now back.
    static func message(_ n: Int, start: Double) -> OutboundMessage {
        let device = DeviceID("bench-watch-\(n % 100)")!
        let id = String(format: "%016x", UInt64(n) &* 0x9E37_79B9_7F4A_7C15)
        let date = start + Double(n) * 0.01
        let (leaf, json): (TopicScheme.Leaf, String) =
            switch n % 4 {
            case 0:
                (
                    .submersionDive,
                    #"{"deviceId":"\#(device)","eventId":"\#(id)","startDate":\#(date - 176.667),"endDate":\#(date),"duration":176.667,"endReason":"surfaced","maxDepth":20.02,"deepestState":"submergedDeep","maximumDepth":40,"timeInState":{"submergedShallow":7.333,"submergedDeep":169.334,"approachingMaxDepth":0,"pastMaxDepth":0,"sensorDepthError":0},"minTemperature":18.997,"minTemperatureUncertainty":0.201,"lastTemperature":23.996,"lastTemperatureUncertainty":0.2,"measurements":530,"ascentWarnings":1,"safetyStop":"missed","longestSafetyStop":10,"staleInputs":0,"duplicateInputs":0,"date":\#(date)}"#
                )
            case 1:
                (
                    .swing,
                    #"{"deviceId":"\#(device)","eventId":"\#(id)","startTimestamp":84560.260732,"impactTimestamp":84560.506737,"timeToContact":0.246005,"contact":true,"peakRotationRate":12.4319,"rotationAngle":1.9391}"#
                )
            case 2:
                (
                    .submersionDepthState,
                    #"{"deviceId":"\#(device)","eventId":"\#(id)","state":"submergedDeep","rawValue":300,"previous":"submergedShallow","previousRawValue":200,"depth":1.064,"maximumDepth":6,"cause":"measurement","deviceState":"submergedShallow","deviceStateRawValue":200,"date":\#(date)}"#
                )
            default:
                (.connection, #"{"deviceId":"\#(device)","state":"connected","reason":"online","date":\#(date),"eventId":"\#(id)"}"#)
            }
        return OutboundMessage(leaf, of: device, in: scheme, payload: Array(json.utf8))
    }

    /// Records every event, then writes the buffer out as the service does; prints the costs.
    static func measure(_ store: any EventHistoryStoring, name: String) async throws {
        let history = BufferedEventHistory(
            families: GatewayConfiguration.History.discreteFamilies, maximumBytes: 1 << 30,
            metrics: HistoryMetrics(factory: CatalogMetricsFactory(registry: PrometheusCollectorRegistry())), clock: SystemGatewayClock(), logger: Logger(label: "bench"))
        let service = EventHistoryService(history: history, store: store, retention: 86_400, clock: SystemGatewayClock(), logger: Logger(label: "bench"))
        let start = Date().timeIntervalSince1970 - Double(events) * 0.01
        let messages = (0..<events).map { message($0, start: start) }
        let bytes = messages.reduce(0) { $0 + $1.payload.count }
        let clock = ContinuousClock()
        let recording = clock.measure {
            for message in messages { history.record([message], receivedAt: start, holding: nil) }
        }
        var written = 0
        let writing = try await clock.measure {
            while true {
                let batch = history.nextBatch(maximumEvents: EventHistoryService.batchEvents)
                if batch.isEmpty { break }
                written += try #require(await service.writeBatch(batch))
            }
        }
        #expect(written == events)
        // A replay of the same events: every row is found stored already.
        for message in messages.prefix(10_000) { history.record([message], receivedAt: start, holding: nil) }
        var duplicates = 0
        let replaying = try await clock.measure {
            while true {
                let batch = history.nextBatch(maximumEvents: EventHistoryService.batchEvents)
                if batch.isEmpty { break }
                duplicates += batch.count - (try #require(await service.writeBatch(batch)))
            }
        }
        #expect(duplicates == min(events, 10_000))
        // The parts of the write: making rows of the buffered messages, and the store's insert of
        // ready rows (new ids, so nothing is a duplicate).
        let entries = messages.map { EventHistoryBuffer.Entry(messages: [$0], receivedAt: start, hold: nil) }
        var rows: [EventHistoryRow] = []
        let converting = clock.measure { rows = BufferedEventHistory.rows(of: entries) }
        for index in rows.indices { rows[index].eventId = "f" + rows[index].eventId.dropFirst() }
        let inserting = try await clock.measure {
            for first in stride(from: 0, to: rows.count, by: EventHistoryService.batchEvents) {
                _ = try await store.insertEvents(Array(rows[first..<min(rows.count, first + EventHistoryService.batchEvents)]))
            }
        }
        func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
        let report: [String: Any] = [
            "store": name, "events": events, "meanPayloadBytes": bytes / events,
            "recordNanosecondsPerEvent": Int(seconds(recording) / Double(events) * 1e9),
            "writeMicrosecondsPerEvent": (seconds(writing) / Double(events) * 1e6 * 10).rounded() / 10,
            "rowsPerSecond": Int(Double(events) / seconds(writing)),
            "replayRowsPerSecond": Int(Double(min(events, 10_000)) / seconds(replaying)),
            "rowMakingMicrosecondsPerEvent": (seconds(converting) / Double(events) * 1e6 * 10).rounded() / 10,
            "insertOnlyRowsPerSecond": Int(Double(events) / seconds(inserting)),
        ]
        print("history-write:", String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
    }

    @Test("PostgreSQL: worker cost, write cost per event, rows per second")
    func postgres() async throws {
        try await TestPostgres.withStore { client in
            try await Self.measure(PostgresEventHistoryStore(client), name: "postgres")
            // Bytes on disk per row of the contract's mix: the partitions with their indexes.
            let perRow = try await client.withConnection { connection in
                try await PostgresRecorderStore.single(
                    Int64.self,
                    connection.query(
                        """
                        SELECT ((SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits WHERE inhparent = 'event_history'::regclass) / count(*))::bigint
                        FROM event_history
                        """, logger: client.logger))
            }
            print("history-write:", #"{"store":"postgres on disk","bytesPerRow":\#(perRow ?? 0)}"#)
            // What the server alone takes: the same rows made by the server in 1000-row statements
            // (swing-sized payloads parsed to jsonb, the key and the device index kept), no client.
            let store = PostgresEventHistoryStore(client)
            try await store.preparePartitions(around: Date().timeIntervalSince1970)
            let rows = 200_000
            let started = ContinuousClock.now
            for first in stride(from: 0, to: rows, by: 1000) {
                _ = try await client.withConnection { connection in
                    try await connection.query(
                        """
                        INSERT INTO event_history (event_time, event_id, device, family, payload)
                        SELECT clock_timestamp(), 'srv' || i, 'bench-watch-' || (i % 100), 'swing',
                          ('{"deviceId":"bench-watch-' || (i % 100) || '","eventId":"' || md5(i::text) || '","startTimestamp":84560.260732,"impactTimestamp":84560.506737,"timeToContact":0.246005,"contact":true,"peakRotationRate":12.4319,"rotationAngle":1.9391}')::jsonb
                        FROM generate_series(\(first), \(first + 999)) AS i
                        """, logger: client.logger)
                }
            }
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("history-write:", #"{"store":"postgres server alone","rows":\#(rows),"rowsPerSecond":\#(Int(Double(rows) / seconds))}"#)
        }
    }

    @Test("SQLite: the same")
    func sqlite() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("history-bench-\(UUID().uuidString)/recorder.sqlite").path
        try await Self.measure(RecorderDatabase(path: path), name: "sqlite")
    }
}
