import Foundation
import Locking
import MQTTTransport
import Testing

@testable import TelemetryGateway

/// Liveness and readiness decisions, on a clock the test moves.
@Suite struct RuntimeHealthTests {
    final class TestClock: Sendable {
        let time = LockedState(100.0)
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
        var now: Double { time.withLock { $0 } }
    }

    private static func json(_ report: HealthReport) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(report.json)) as? [String: Any])
    }

    @Test("a loop that stops beating makes liveness fail after stallTimeout plus its period")
    func stalledLoop() throws {
        let clock = TestClock()
        let health = RuntimeHealth(stallTimeout: 10, now: { clock.now })
        health.beat("worker-0", every: 0.5)
        health.beat("ticker", every: 0.5)
        #expect(health.liveness().ok)
        clock.advance(10.4)
        health.beat("ticker", every: 0.5)
        #expect(health.liveness().ok, "10.4 s is within 10 s + the 0.5 s period")
        clock.advance(0.2)
        let report = health.liveness()
        #expect(!report.ok)
        #expect(report.problems.count == 1 && report.problems[0].hasPrefix("worker-0 has not run for 10 s"))
        #expect(try Self.json(report)["status"] as? String == "unavailable")
        health.retire("worker-0")
        #expect(health.liveness().ok, "a loop that ended on purpose is not stalled")
    }

    @Test("a network thread stuck in the message handler, and an unacknowledged probe while connected, fail liveness")
    func stuckThreads() {
        let clock = TestClock()
        let health = RuntimeHealth(stallTimeout: 5, now: { clock.now })
        health.handlerEntered()
        clock.advance(6)
        #expect(health.liveness().problems.contains { $0.contains("stuck in the message handler") })
        health.handlerLeft()
        #expect(health.liveness().ok)

        health.probe(sentAt: clock.now)
        clock.advance(6)
        #expect(health.liveness().ok, "a probe waiting while the publisher is disconnected is not a stall")
        health.record(.connected(sessionPresent: false), connection: "publisher")
        #expect(health.liveness().problems.contains { $0.contains("round trip") })
        health.probe(sentAt: nil)
        #expect(health.liveness().ok)
    }

    @Test("ready only while both connections are up and every queue is below its limit; the body says why")
    func readiness() throws {
        let health = RuntimeHealth(stallTimeout: 30, now: { 0 })
        let depth = LockedState(0)
        health.watchQueues { [HealthReport.QueueLoad(name: "worker-0", depth: depth.withLock { $0 }, capacity: 4)] }
        var report = health.readiness()
        #expect(!report.ok)
        #expect(report.problems == ["the publisher connection to the broker is down", "the subscriber connection to the broker is down"])

        health.record(.connected(sessionPresent: false), connection: "publisher")
        health.record(.connected(sessionPresent: true), connection: "subscriber")
        #expect(health.readiness().ok)

        depth.withLock { $0 = 4 }
        report = health.readiness()
        #expect(report.problems == ["queue worker-0 is full (4 of 4)"])
        depth.withLock { $0 = 3 }
        health.record(.disconnected(reason: "broker went away"), connection: "subscriber")
        report = health.readiness()
        #expect(report.problems == ["the subscriber connection to the broker is down"])
        let body = try Self.json(report)
        #expect((body["connections"] as? [String: Bool]) == ["publisher": true, "subscriber": false])
        #expect((body["reasons"] as? [String]) == report.problems)
        let queues = try #require(body["queues"] as? [[String: Any]])
        #expect(queues.first?["depth"] as? Int == 3 && queues.first?["capacity"] as? Int == 4)

        health.record(.connecting(attempt: 1), connection: "subscriber")
        #expect(!health.readiness().ok, "connecting is not connected")
        health.record(.connected(sessionPresent: true), connection: "subscriber")
        #expect(health.readiness().ok)
    }

    @Test("a failing shared store (store.url) makes /readyz fail naming it; a failing SQLite file only shows in the body")
    func sharedStoreDecidesReadiness() {
        let health = RuntimeHealth(stallTimeout: 30, now: { 0 })
        health.record(.connected(sessionPresent: false), connection: "publisher")
        health.record(.connected(sessionPresent: true), connection: "subscriber")
        health.recordStore("state.path", error: "disk full")
        #expect(health.readiness().ok)
        #expect(health.readiness().stores.map(\.name) == ["state.path"])
        health.recordStore("store.url", error: "PostgreSQL connectionError: connection refused", decidesReadiness: true)
        let report = health.readiness()
        #expect(!report.ok)
        #expect(report.problems == ["the store store.url is failing: PostgreSQL connectionError: connection refused"])
        health.recordStore("store.url", error: nil, decidesReadiness: true)
        #expect(health.readiness().ok)
    }
}
