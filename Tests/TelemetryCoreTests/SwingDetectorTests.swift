import TelemetryCore
import TelemetrySimulation
import Testing

/// Contacts, misses, and motions that must publish nothing.
@Suite("Swing detector")
struct SwingDetectorTests {
    @Test("contact swings: start, impact, time to contact, peak and angle match the ground truth")
    func contacts() throws {
        let scenario = SwingScenario(seed: 51, actions: [.idle(seconds: 1)] + Array(repeating: .swing(contact: true), count: 8))
        let events = SwingEvaluation.detect(scenario)
        try #require(events.count == 8)
        for (event, truth) in zip(events, scenario.groundTruth) {
            #expect(event.contact)
            #expect(abs(event.startTimestamp - truth.startTimestamp) < 0.004, "\(event) vs \(truth)")
            #expect(abs(event.impactTimestamp! - truth.impactTimestamp!) < 0.002)
            #expect(abs(event.timeToContact! - truth.timeToContact!) < 0.005)
            #expect((0.12...0.25).contains(truth.timeToContact!))
            #expect(abs(event.peakRotationRate - truth.peakRotationRate) < 0.05 * truth.peakRotationRate)
            #expect(abs(event.rotationAngle - truth.angleToContact) < 0.08 * truth.angleToContact)
            #expect(event.direction == truth.direction)
        }
    }

    @Test("missed swings are published with contact = false and no time to contact")
    func misses() throws {
        let actions: [SwingScenario.Action] = [.idle(seconds: 1), .swing(contact: false), .swing(contact: true), .swing(contact: false), .swing(contact: false)]
        for seed in UInt64(61)...65 {
            let scenario = SwingScenario(seed: seed, actions: actions)
            let events = SwingEvaluation.detect(scenario)
            try #require(events.count == 4, "seed \(seed): \(events)")
            #expect(events.map(\.contact) == [false, true, false, false])
            for (event, truth) in zip(events, scenario.groundTruth) where !event.contact {
                #expect(event.impactTimestamp == nil && event.timeToContact == nil)
                #expect(abs(event.startTimestamp - truth.startTimestamp) < 0.004)
                #expect(abs(event.peakRotationRate - truth.peakRotationRate) < 0.05 * truth.peakRotationRate)
                #expect(abs(event.rotationAngle - truth.angleToContact) < 0.15 * truth.angleToContact, "measured to the (flat-topped, noisy) peak rate")
            }
        }
    }

    @Test("walking, waving, practice swings, knocks and standing still publish nothing", arguments: [UInt64(71), 72, 73, 74])
    func nonSwings(seed: UInt64) {
        var options = SwingScenario.Options()
        options.lateBatchProbability = 0.2
        let actions: [SwingScenario.Action] = [
            .idle(seconds: 2), .walking(seconds: 20), .waving(seconds: 6), .practiceSwing, .practiceSwing, .bump, .practiceSwing, .bump,
            .waving(seconds: 4), .walking(seconds: 10), .practiceSwing, .bump, .idle(seconds: 5),
        ]
        let scenario = SwingScenario(seed: seed, actions: actions, options: options)
        #expect(SwingEvaluation.detect(scenario).isEmpty)
    }

    @Test("finishing decides what is still pending: a swing at the very end of a workout")
    func finishDecidesPending() throws {
        let scenario = SwingScenario(seed: 81, actions: [.idle(seconds: 1), .swing(contact: true), .swing(contact: false)])
        let impact = try #require(scenario.groundTruth[0].impactTimestamp)
        // Only the batches that begin before the contact: the detector cannot decide yet.
        let truncated = scenario.arrivals.filter { batch in
            switch batch {
            case .accelerometer(let batch): batch.samples[0].timestamp < impact
            case .deviceMotion(let batch): batch.samples[0].timestamp < impact
            }
        }
        var detector = SwingDetector(configuration: SwingConfiguration())
        var events: [SwingEvent] = []
        for batch in truncated {
            switch batch {
            case .accelerometer(let batch): detector.receive(accelerometer: batch.samples, into: &events)
            case .deviceMotion(let batch): detector.receive(deviceMotion: batch.samples, into: &events)
            }
        }
        let beforeFinish = events.count
        detector.finish(into: &events)
        #expect(events.count - beforeFinish <= 1)
        #expect(events.contains { SwingEvaluation.matches($0, scenario.groundTruth[0]) })
        #expect(detector.window.accelerometer.isEmpty && detector.window.motion.isEmpty, "finishing empties the window")
    }
}
