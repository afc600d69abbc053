import TelemetryCore
import TelemetrySimulation

/// Runs swing scenarios through a ``SwingDetector`` and scores the result against the
/// generator's ground truth.
enum SwingEvaluation {
    /// Feeds the scenario's batches in arrival order, then finishes (the workout ends).
    static func detect(_ scenario: SwingScenario, configuration: SwingConfiguration = SwingConfiguration(), finish: Bool = true) -> [SwingEvent] {
        detect(scenario.arrivals, configuration: configuration, finish: finish)
    }

    /// Feeds `batches` in order, then finishes when asked.
    static func detect(_ batches: [SwingScenario.Batch], configuration: SwingConfiguration = SwingConfiguration(), finish: Bool = true) -> [SwingEvent] {
        var detector = SwingDetector(configuration: configuration)
        var events: [SwingEvent] = []
        for batch in batches {
            switch batch {
            case .accelerometer(let batch): detector.receive(accelerometer: batch.samples, into: &events)
            case .deviceMotion(let batch): detector.receive(deviceMotion: batch.samples, into: &events)
            }
        }
        if finish { detector.finish(into: &events) }
        return events
    }

    /// How a detected event matches a ground-truth swing: same contact flag, start within
    /// 30 ms, impact within 10 ms.
    static func matches(_ event: SwingEvent, _ truth: SwingGroundTruth) -> Bool {
        guard truth.shouldPublish, event.contact == (truth.kind == .contact) else { return false }
        guard abs(event.startTimestamp - truth.startTimestamp) <= 0.03 else { return false }
        if let impact = truth.impactTimestamp, let detected = event.impactTimestamp { return abs(detected - impact) <= 0.01 }
        return true
    }

    /// The scores of one run.
    struct Score {
        var expected = 0
        var detected = 0
        var falsePositives = 0
        var nonSwingSeconds = 0.0
        /// Detected − true time to contact, s, per matched contact.
        var timeToContactErrors: [Double] = []
        var startErrors: [Double] = []
        var impactErrors: [Double] = []
        var missedTruth: [SwingGroundTruth] = []
        var unmatchedEvents: [SwingEvent] = []

        var recall: Double { expected == 0 ? 1 : Double(detected) / Double(expected) }
        var falsePositivesPer100Seconds: Double { nonSwingSeconds == 0 ? 0 : Double(falsePositives) / nonSwingSeconds * 100 }

        /// The `fraction` quantile of |time-to-contact error|, s.
        func absoluteTimeToContactError(quantile fraction: Double) -> Double {
            Self.quantile(timeToContactErrors.map(abs), fraction)
        }

        static func quantile(_ values: [Double], _ fraction: Double) -> Double {
            guard !values.isEmpty else { return 0 }
            let sorted = values.sorted()
            let position = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
            return sorted[position]
        }

        mutating func add(_ other: Score) {
            expected += other.expected
            detected += other.detected
            falsePositives += other.falsePositives
            nonSwingSeconds += other.nonSwingSeconds
            timeToContactErrors += other.timeToContactErrors
            startErrors += other.startErrors
            impactErrors += other.impactErrors
            missedTruth += other.missedTruth
            unmatchedEvents += other.unmatchedEvents
        }
    }

    /// Scores events against the scenario's ground truth.
    static func score(_ events: [SwingEvent], _ scenario: SwingScenario) -> Score {
        var score = Score()
        score.nonSwingSeconds = scenario.nonSwingSeconds
        var used = Array(repeating: false, count: events.count)
        for truth in scenario.groundTruth where truth.shouldPublish {
            score.expected += 1
            guard let index = events.indices.first(where: { !used[$0] && matches(events[$0], truth) }) else {
                score.missedTruth.append(truth)
                continue
            }
            used[index] = true
            score.detected += 1
            let event = events[index]
            score.startErrors.append(event.startTimestamp - truth.startTimestamp)
            if let detected = event.timeToContact, let expected = truth.timeToContact, let impact = event.impactTimestamp,
                let trueImpact = truth.impactTimestamp
            {
                score.timeToContactErrors.append(detected - expected)
                score.impactErrors.append(impact - trueImpact)
            }
        }
        for (index, event) in events.enumerated() where !used[index] {
            score.falsePositives += 1
            score.unmatchedEvents.append(event)
        }
        return score
    }
}
