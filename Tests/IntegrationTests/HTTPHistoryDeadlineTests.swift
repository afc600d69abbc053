import BrokerTestSupport
import CoreMetrics
import Foundation
import GatewayTime
import Logging
import RecorderStore
import ServiceLifecycle
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// `GET /api/devices/{id}/events` through the real Hummingbird server over a history store that
/// stops answering: the request is answered 503 once the read's deadline passed on the gateway's
/// clock, instead of holding the connection for ever.
@Suite struct HTTPHistoryDeadlineTests {
    @Test("a history read the store never answers: 503 naming the deadline once it passed, not before")
    func storeThatNeverAnswers() async throws {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = SilentHistoryStore()
        let endpoints = HTTPEndpoints(
            metrics: { [] }, liveness: { HealthReport(problems: []) }, readiness: { HealthReport(problems: []) },
            fleet: FleetView(maxBytes: 1 << 20, metricsFactory: NOOPMetricsHandler.instance), history: store, clock: clock)
        try await serving(endpoints, label: "http-history-deadline") { base in
            let answer = Task { await HTTPAnswer.get(base.appendingPathComponent("api/devices/watch-1/events"), timeout: 30) }
            // The read is in the store and its deadline's timer asleep on the manual clock.
            let asleep = ContinuousClock.now + .seconds(60)  // generous: parallel suites on two cores can keep new tasks waiting for seconds
            while store.reads == 0 || clock.sleepers == 0 {
                guard ContinuousClock.now < asleep else { throw TestFailure("the read never reached the store") }
                try await Task.sleep(for: .milliseconds(10))
            }
            clock.advance(by: HTTPEndpoints.historyDeadline - 1)
            #expect(clock.sleepers == 1, "not answered before its deadline")
            clock.advance(by: 1)
            let response = try #require(await answer.value)
            #expect(response.status == 503)
            #expect(response.text.contains("did not answer within 10.0 s"), "\(response.text)")
        }
    }
}

/// A history store whose reads never return (a frozen server): they wait until cancelled.
private final class SilentHistoryStore: EventHistoryStoring {
    private let calls = NeverAnsweringCalls()
    var reads: Int { calls.count }
    var location: String { "silent" }
    func insertEvents(_ rows: [EventHistoryRow]) async throws -> Int { 0 }
    func events(of device: DeviceID, family: String?, from: Double, to: Double, after cursor: EventHistoryCursor?, limit: Int) async throws
        -> [EventHistoryRow]
    {
        try await calls.hang()
    }
    func pruneEvents(before cutoff: Double) async throws -> Int { 0 }
    func storeTime() async throws -> Double? { nil }
    func preparePartitions(around date: Double) async throws {}
}
