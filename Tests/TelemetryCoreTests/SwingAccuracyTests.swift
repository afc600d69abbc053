import Foundation
import TelemetryCore
import TelemetrySimulation
import Testing

/// The accuracy report: seeded swings from the simulator, scored against its ground truth.
///
/// By default 200 swings (a few seconds in a debug build); `WG_FULL_ACCURACY=1` runs the full
/// 1,000. Both assert the targets of the issue and print the figures recorded in
/// `docs/swing-metrics.md`:
///
///     swift test --filter SwingAccuracyTests
///     WG_FULL_ACCURACY=1 swift test --filter SwingAccuracyTests
@Suite("Swing accuracy on seeded simulator swings")
struct SwingAccuracyTests {
    static let fullRun = ProcessInfo.processInfo.environment["WG_FULL_ACCURACY"] == "1"

    @Test("recall ≥ 98 %, ≤ 1 false positive per 100 non-swing seconds, |time-to-contact error| ≤ 5 ms at p95")
    func accuracy() {
        let swings = Self.fullRun ? 1_000 : 200
        let perSession = 50
        var total = SwingEvaluation.Score()
        for session in 0..<(swings / perSession) {
            var options = SwingScenario.Options()
            options.lateBatchProbability = 0.05
            let scenario = SwingScenario.accuracySession(seed: 1_000 + UInt64(session), swings: perSession, options: options)
            let events = SwingEvaluation.detect(scenario)
            total.add(SwingEvaluation.score(events, scenario))
        }
        let p50 = total.absoluteTimeToContactError(quantile: 0.5) * 1000
        let p95 = total.absoluteTimeToContactError(quantile: 0.95) * 1000
        let p99 = total.absoluteTimeToContactError(quantile: 0.99) * 1000
        let maximum = total.absoluteTimeToContactError(quantile: 1) * 1000
        let meanError = total.timeToContactErrors.reduce(0, +) / Double(max(1, total.timeToContactErrors.count)) * 1000
        let meanStart = total.startErrors.reduce(0, +) / Double(max(1, total.startErrors.count)) * 1000
        let meanImpact = total.impactErrors.reduce(0, +) / Double(max(1, total.impactErrors.count)) * 1000
        print(
            """
            swing accuracy (\(swings) seeded swings, seeds 1000–\(1000 + swings / perSession - 1)):
              recall \(total.detected)/\(total.expected) = \(String(format: "%.2f", total.recall * 100)) %
              false positives \(total.falsePositives) in \(String(format: "%.0f", total.nonSwingSeconds)) non-swing s = \(String(format: "%.3f", total.falsePositivesPer100Seconds)) per 100 s
              |time-to-contact error| over \(total.timeToContactErrors.count) contacts: p50 \(String(format: "%.2f", p50)) ms, p95 \(String(format: "%.2f", p95)) ms, p99 \(String(format: "%.2f", p99)) ms, max \(String(format: "%.2f", maximum)) ms
              mean signed errors: time to contact \(String(format: "%+.2f", meanError)) ms, start \(String(format: "%+.2f", meanStart)) ms, impact \(String(format: "%+.2f", meanImpact)) ms
            """)
        for truth in total.missedTruth.prefix(10) { print("  missed: \(truth)") }
        for event in total.unmatchedEvents.prefix(10) { print("  unmatched: \(event)") }
        #expect(total.recall >= 0.98)
        #expect(total.falsePositivesPer100Seconds <= 1)
        #expect(p95 <= 5)
    }
}
