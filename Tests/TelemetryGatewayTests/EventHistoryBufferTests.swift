import Foundation
import Locking
import Logging
import Prometheus
import RecorderStore
import TelemetryCore
import Testing

@testable import TelemetryGateway

/// The event history's pure parts: the byte-bounded buffer, the family filter and the journal
/// holds of ``BufferedEventHistory``, the rows made of published messages, the scanner of their
/// `eventId` and `date`, and the HTTP request's parsing.
@Suite struct EventHistoryBufferTests {
    static let scheme = TopicScheme()
    static let watch = DeviceID("watch-1")!

    static func message(_ leaf: TopicScheme.Leaf, _ json: String, device: DeviceID = watch) -> OutboundMessage {
        OutboundMessage(leaf, of: device, in: scheme, payload: Array(json.utf8))
    }

    static func entry(bytes payload: Int, hold: ReleaseCountdown? = nil) -> EventHistoryBuffer.Entry {
        EventHistoryBuffer.Entry(messages: [message(.swing, String(repeating: "x", count: payload))], receivedAt: 1, hold: hold)
    }

    @Test("entries are admitted whole up to the byte bound; the newest beyond it is refused and counted")
    func byteBound() {
        let one = Self.entry(bytes: 100)
        var buffer = EventHistoryBuffer(maximumBytes: one.bytes * 3)
        for _ in 0..<3 {
            let admitted = buffer.append(one)
            #expect(admitted)
        }
        #expect(buffer.bytes == one.bytes * 3)
        let refused = buffer.append(Self.entry(bytes: 1))
        #expect(!refused)
        #expect(buffer.dropped == 1)
        // Two events in one refused entry count two.
        let pair = buffer.append(EventHistoryBuffer.Entry(messages: [Self.message(.swing, "{}"), Self.message(.tennisStroke, "{}")], receivedAt: 1, hold: nil))
        #expect(!pair)
        #expect(buffer.dropped == 3)
        _ = buffer.removeFirst(1)
        #expect(buffer.bytes == one.bytes * 2)
        let fits = buffer.append(Self.entry(bytes: 1))
        #expect(fits)
    }

    @Test("batches take whole entries, oldest first, up to the event limit (at least one entry), and stay until removed")
    func batching() {
        var buffer = EventHistoryBuffer(maximumBytes: 1 << 20)
        for n in 0..<5 {
            _ = buffer.append(EventHistoryBuffer.Entry(messages: Array(repeating: Self.message(.swing, "{}"), count: n + 1), receivedAt: Double(n), hold: nil))
        }
        #expect(buffer.batch(maximumEvents: 3).map(\.receivedAt) == [0, 1])
        #expect(buffer.batch(maximumEvents: 3).map(\.receivedAt) == [0, 1], "a batch stays buffered until written")
        _ = buffer.removeFirst(2)
        #expect(buffer.batch(maximumEvents: 2).map(\.receivedAt) == [2], "an entry larger than the limit is a batch alone")
        #expect(buffer.batch(maximumEvents: 100).map(\.receivedAt) == [2, 3, 4])
        _ = buffer.removeFirst(3)
        #expect(buffer.isEmpty && buffer.bytes == 0)
        #expect(buffer.batch(maximumEvents: 10).isEmpty)
    }

    @Test("holds are given back once: when written, when a write failed, never when dropped at shutdown")
    func holds() {
        let released = LockedState(0)
        func hold() -> ReleaseCountdown { ReleaseCountdown(parts: 1) { released.withLock { $0 += 1 } } }
        var buffer = EventHistoryBuffer(maximumBytes: 1 << 20)
        let first = hold(), second = hold()
        _ = buffer.append(Self.entry(bytes: 10, hold: first))
        _ = buffer.append(Self.entry(bytes: 10, hold: second))
        _ = buffer.append(Self.entry(bytes: 10, hold: hold()))
        let failed = buffer.releaseHolds(ofFirst: 1)
        #expect(failed.count == 1 && failed[0] === first)
        let again = buffer.releaseHolds(ofFirst: 1)
        #expect(again.isEmpty, "a hold is given back once")
        #expect(buffer.count == 3, "a failed batch stays for the retry")
        let written = buffer.removeFirst(2)
        #expect(written.count == 1 && written[0] === second)
        buffer.dropAll()
        #expect(buffer.dropped == 1 && buffer.isEmpty)
        #expect(released.withLock { $0 } == 0, "the buffer itself never completes a countdown")
    }

    @Test("only kept families below a device are recorded; a frame's record waits for its events, and is let go when they are dropped")
    func filterAndHolds() {
        let registry = PrometheusCollectorRegistry()
        let history = BufferedEventHistory(
            families: ["submersion/dive", "swing"], maximumBytes: 2000, metrics: HistoryMetrics(factory: CatalogMetricsFactory(registry: registry)),
            clock: SystemGatewayClock(), logger: Logger(label: "test"))
        let released = LockedState(0)
        func countdown() -> ReleaseCountdown { ReleaseCountdown(parts: 1) { released.withLock { $0 += 1 } } }
        // Nothing kept: no hold, no entry.
        let pose = countdown()
        history.record([Self.message(.headphonePose, "{}"), Self.message(.submersionTemperature, "{}")], receivedAt: 1, holding: pose)
        #expect(history.nextBatch(maximumEvents: 10).isEmpty)
        pose.partDone()
        #expect(released.withLock { $0 } == 1)
        // A dive and a swing kept, the temperature not; the record waits for the write.
        let dive = countdown()
        history.record(
            [Self.message(.submersionDive, #"{"eventId":"a","date":5}"#), Self.message(.submersionTemperature, "{}"), Self.message(.swing, #"{"eventId":"b"}"#)],
            receivedAt: 7, holding: dive)
        dive.partDone()
        #expect(released.withLock { $0 } == 1, "held until the events are written")
        let batch = history.nextBatch(maximumEvents: 10)
        #expect(batch.count == 1 && batch[0].messages.map(\.leaf) == [.submersionDive, .swing])
        history.written(1)
        #expect(released.withLock { $0 } == 2)
        // Too big for the buffer: dropped, counted, the record let go at once.
        let big = countdown()
        history.record([Self.message(.swing, String(repeating: "y", count: 3000))], receivedAt: 8, holding: big)
        big.partDone()
        #expect(released.withLock { $0 } == 3)
        #expect(registry.value(of: "gateway_history_dropped_total") == 1)
        #expect(history.health.dropped == 1)
        // A failed write lets the record go and keeps the events; /readyz says why.
        let failing = countdown()
        history.record([Self.message(.swing, #"{"eventId":"c"}"#)], receivedAt: 9, holding: failing)
        failing.partDone()
        history.failed(1, error: "connection refused")
        #expect(released.withLock { $0 } == 4)
        #expect(history.nextBatch(maximumEvents: 10).count == 1)
        #expect(history.health.lastError == "connection refused")
        #expect(history.health.bufferedBytes > 0)
        history.written(1)
        #expect(history.health.lastError == nil && history.health.bufferedBytes == 0)
    }

    @Test("rows: keyed by eventId at the payload's date, or at the frame's arrival; an event without an id gets a stable one")
    func rows() {
        let entry = EventHistoryBuffer.Entry(
            messages: [
                Self.message(.submersionDive, #"{"deviceId":"watch-1","eventId":"35823e08309d5940","timeInState":{"date":1},"date":1767226181.667}"#),
                Self.message(.swing, #"{"deviceId":"watch-1","eventId":"c50429383d25cfb4","startTimestamp":84560.26}"#),
                Self.message(.availability, #"{"model":"Watch7,5"}"#),
            ], receivedAt: 1_767_226_200.5, hold: nil)
        let rows = BufferedEventHistory.rows(of: [entry])
        #expect(rows.map(\.eventTime) == [1_767_226_181.667, 1_767_226_200.5, 1_767_226_200.5])
        #expect(rows.map(\.family) == ["submersion/dive", "swing", "availability"])
        #expect(rows[0].eventId == "35823e08309d5940" && rows[1].eventId == "c50429383d25cfb4")
        #expect(rows[2].eventId.count == 16 && rows[2].eventId == BufferedEventHistory.rows(of: [entry])[2].eventId)
        #expect(rows.allSatisfy { $0.device == Self.watch })
    }

    @Test("the scanner reads top-level eventId and date only, past nested values, escapes and odd spacing")
    func scanner() {
        let fields = HistoryEventFields(
            scanning: Array(#" { "a" : [1, {"date": 3}, "x\"]}"], "eventId" : "ab\"c" , "nested":{"eventId":"no"}, "date" : -1.5e3 } "#.utf8))
        #expect(fields == HistoryEventFields(eventId: #"ab"c"#, date: -1500))
        #expect(HistoryEventFields(scanning: Array("not json".utf8)) == HistoryEventFields())
        #expect(HistoryEventFields(scanning: Array(#"{"date":"soon"}"#.utf8)).date == nil)
        #expect(HistoryEventFields(scanning: []) == HistoryEventFields())
    }

    @Test("the endpoint's parameters: defaults, bounds, cursor, family; each refusal names its parameter")
    func request() throws {
        func parse(_ device: String, _ parameters: [String: String]) -> Result<EventHistoryRequest, EventHistoryRequestError> {
            EventHistoryRequest.parse(device: device, parameter: { parameters[$0] })
        }
        let plain = try parse("watch-1", [:]).get()
        #expect(plain.limit == 100 && plain.family == nil && plain.after == nil && plain.from == -.infinity && plain.to == .infinity)
        let full = try parse("watch-1", ["family": "submersion/dive", "from": "10", "to": "20.5", "limit": "1000", "after": "15.25:00ff"]).get()
        #expect(full.family == "submersion/dive" && full.from == 10 && full.to == 20.5 && full.limit == 1000)
        #expect(full.after == EventHistoryCursor(eventTime: 15.25, eventId: "00ff"))
        for (parameters, named) in [
            (["limit": "1001"], "limit"), (["limit": "0"], "limit"), (["from": "x"], "from"), (["to": "inf"], "to"), (["from": "5", "to": "4"], "from"),
            (["after": "12"], "after"), (["after": "1:xyz"], "after"), (["family": "headphone/reset-pose"], "family"),
        ] {
            guard case .failure(let error) = parse("watch-1", parameters) else {
                Issue.record("accepted \(parameters)")
                continue
            }
            #expect(error.message.hasPrefix(named), "\(parameters): \(error.message)")
        }
        if case .success = parse("bad/id", [:]) { Issue.record("accepted a bad device id") }
    }

    @Test("a full page says where the next starts; a short one says null; payloads are embedded as JSON")
    func page() throws {
        let request = try EventHistoryRequest.parse(device: "watch-1", parameter: { $0 == "limit" ? "2" : nil }).get()
        let rows = [
            EventHistoryRow(device: Self.watch, family: "swing", eventTime: 20.5, eventId: "b", payload: Array(#"{"contact":true}"#.utf8)),
            EventHistoryRow(device: Self.watch, family: "swing", eventTime: 10.25, eventId: "a", payload: Array(#"{"contact":false}"#.utf8)),
        ]
        let full = try JSONSerialization.jsonObject(with: Data(request.page(rows))) as? [String: Any]
        #expect(full?["next"] as? String == "10.25:a")
        let events = full?["events"] as? [[String: Any]]
        #expect((events?.first?["payload"] as? [String: Any])?["contact"] as? Bool == true)
        #expect(events?.first?["eventTime"] as? Double == 20.5)
        let short = try JSONSerialization.jsonObject(with: Data(request.page(Array(rows.prefix(1))))) as? [String: Any]
        #expect(short?["next"] is NSNull)
        #expect(EventHistoryCursor(text: "10.25:a") == rows[1].cursor)
    }

    @Test("readiness describes the history without deciding it")
    func readiness() throws {
        let health = RuntimeHealth(stallTimeout: 10, now: { 0 })
        health.watchHistory { HealthReport.HistoryHealth(bufferedBytes: 10, bufferBytes: 100, dropped: 3, lastError: "down") }
        let report = health.readiness()
        let json = try JSONSerialization.jsonObject(with: Data(report.json)) as? [String: Any]
        let history = json?["history"] as? [String: Any]
        #expect(history?["status"] as? String == "failing")
        #expect(history?["dropped"] as? Int == 3)
        #expect(!report.problems.contains { $0.contains("history") })
    }
}
