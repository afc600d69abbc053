import TelemetryCore
import TelemetrySimulation
import Testing

/// Batch alignment: the two batched streams arrive separately, once a second, in either order
/// and with gaps; a swing must be measured the same wherever the batches split it.
@Suite("Swing batch alignment")
struct SwingAlignmentTests {
    static let actions: [SwingScenario.Action] = [
        .idle(seconds: 1), .swing(contact: true, placement: .acrossBatchBoundary), .swing(contact: true, placement: .insideBatch),
        .walking(seconds: 4), .swing(contact: false, placement: .acrossBatchBoundary), .swing(contact: true, placement: .acrossBatchBoundary),
        .waving(seconds: 3), .swing(contact: false, placement: .insideBatch), .swing(contact: true, placement: .anywhere), .practiceSwing,
        .swing(contact: true, placement: .acrossBatchBoundary), .bump, .swing(contact: false, placement: .anywhere), .idle(seconds: 1),
    ]

    /// Every sample of a scenario, per stream, in order.
    static func samples(_ scenario: SwingScenario) -> (accelerometer: [AccelerometerSample], motion: [DeviceMotion]) {
        var accelerometer: [AccelerometerSample] = []
        var motion: [DeviceMotion] = []
        for batch in scenario.arrivals {
            switch batch {
            case .accelerometer(let batch): accelerometer += batch.samples
            case .deviceMotion(let batch): motion += batch.samples
            }
        }
        return (accelerometer, motion)
    }

    /// Cuts samples into consecutive chunks of `period` seconds starting at `offset`.
    static func chunks<Sample>(_ samples: [Sample], period: Double, offset: Double, timestamp: (Sample) -> Double) -> [[Sample]] {
        guard let first = samples.first.map(timestamp) else { return [] }
        var result: [[Sample]] = [[]]
        var boundary = first + offset
        for sample in samples {
            while timestamp(sample) >= boundary {
                result.append([])
                boundary += period
            }
            result[result.count - 1].append(sample)
        }
        return result.filter { !$0.isEmpty }
    }

    /// Interleaves chunk k of each stream, the lagging stream `lag` chunks behind.
    static func interleave(_ accelerometer: [[AccelerometerSample]], _ motion: [[DeviceMotion]], motionFirst: Bool, lag: Int = 0) -> [SwingScenario.Batch] {
        var batches: [SwingScenario.Batch] = []
        let leading = motionFirst ? motion.count : accelerometer.count
        for index in 0..<(max(accelerometer.count, motion.count) + lag) {
            let lagged = index - lag
            if motionFirst {
                if index < leading { batches.append(.deviceMotion(DeviceMotionBatch(samples: motion[index]))) }
                if lagged >= 0, lagged < accelerometer.count { batches.append(.accelerometer(AccelerometerBatch(samples: accelerometer[lagged]))) }
            } else {
                if index < leading { batches.append(.accelerometer(AccelerometerBatch(samples: accelerometer[index]))) }
                if lagged >= 0, lagged < motion.count { batches.append(.deviceMotion(DeviceMotionBatch(samples: motion[lagged]))) }
            }
        }
        return batches
    }

    @Test("the same samples give the same swings whatever the batch boundaries and arrival order", arguments: [UInt64(21), 22, 23])
    func invariance(seed: UInt64) throws {
        let scenario = SwingScenario(seed: seed, actions: Self.actions)
        let (accelerometer, motion) = Self.samples(scenario)
        let reference = SwingEvaluation.detect(
            Self.interleave(
                Self.chunks(accelerometer, period: 1, offset: 0.5, timestamp: \.timestamp), Self.chunks(motion, period: 1, offset: 0.5, timestamp: \.timestamp),
                motionFirst: false))
        #expect(reference.count == scenario.groundTruth.filter(\.shouldPublish).count)

        var orders: [(String, [SwingScenario.Batch])] = [("the simulator's random arrival order", scenario.arrivals)]
        // Up to two one-second batches behind (the documented tolerance: the window minus the
        // longest rotation and margins, ≈ 2.4 s).
        for (period, offset, lags) in [(1.0, 0.5, [0, 1, 2]), (1.0, 0.13, [0, 1, 2]), (0.37, 0.2, [0, 1, 2, 5]), (1.3, 0.9, [0, 1])] {
            let accelerometerChunks = Self.chunks(accelerometer, period: period, offset: offset, timestamp: \.timestamp)
            let motionChunks = Self.chunks(motion, period: period, offset: offset + 0.011, timestamp: \.timestamp)
            for motionFirst in [false, true] {
                for lag in lags {
                    orders.append(
                        ("\(period) s batches from +\(offset) s, \(motionFirst ? "motion" : "accelerometer") first, other \(lag) behind",
                            Self.interleave(accelerometerChunks, motionChunks, motionFirst: motionFirst, lag: lag)))
                }
            }
        }
        for (name, batches) in orders {
            #expect(SwingEvaluation.detect(batches) == reference, "\(name)")
        }
    }

    @Test("a stream lagging beyond the window loses what it cannot cover but never publishes a false swing")
    func lagBeyondWindow() {
        let scenario = SwingScenario(seed: 24, actions: Self.actions)
        let (accelerometer, motion) = Self.samples(scenario)
        let reference = SwingEvaluation.detect(scenario)
        let accelerometerChunks = Self.chunks(accelerometer, period: 1.3, offset: 0.9, timestamp: \.timestamp)
        let motionChunks = Self.chunks(motion, period: 1.3, offset: 0.911, timestamp: \.timestamp)
        for motionFirst in [false, true] {
            for lag in [2, 3, 6] {
                let events = SwingEvaluation.detect(Self.interleave(accelerometerChunks, motionChunks, motionFirst: motionFirst, lag: lag))
                #expect(events.allSatisfy { reference.contains($0) }, "lag \(lag), \(motionFirst ? "motion" : "accelerometer") first: \(events)")
            }
        }
    }

    @Test("swings that start in one batch and hit in the next are measured like those inside a batch")
    func acrossBoundary() {
        var crossing = SwingEvaluation.Score()
        var inside = SwingEvaluation.Score()
        for seed in UInt64(31)...36 {
            let scenario = SwingScenario(seed: seed, actions: Self.actions)
            let events = SwingEvaluation.detect(scenario)
            let score = SwingEvaluation.score(events, scenario)
            #expect(score.falsePositives == 0 && score.missedTruth.isEmpty, "seed \(seed): \(score.missedTruth) \(score.unmatchedEvents)")
            for truth in scenario.groundTruth where truth.kind == .contact {
                guard let event = events.first(where: { SwingEvaluation.matches($0, truth) }), let error = event.timeToContact.map({ $0 - truth.timeToContact! })
                else { continue }
                if truth.crossesBatchBoundary { crossing.timeToContactErrors.append(error) } else { inside.timeToContactErrors.append(error) }
            }
        }
        #expect(crossing.timeToContactErrors.count >= 12)
        #expect(inside.timeToContactErrors.count >= 6)
        #expect(crossing.absoluteTimeToContactError(quantile: 1) <= 0.005)
        #expect(inside.absoluteTimeToContactError(quantile: 1) <= 0.005)
    }

    @Test("a lost accelerometer batch makes its swing unmeasurable, never a false miss")
    func lostAccelerometerBatch() throws {
        let actions: [SwingScenario.Action] = [.idle(seconds: 1), .swing(contact: true, placement: .insideBatch), .swing(contact: true), .swing(contact: false)]
        let complete = SwingScenario(seed: 41, actions: actions)
        let impact = try #require(complete.groundTruth[0].impactTimestamp)
        let lost = try #require(Self.batchIndex(of: .accelerometer, containing: impact, in: complete))
        var options = SwingScenario.Options()
        options.droppedBatches = [SwingScenario.BatchID(.accelerometer, lost)]
        let scenario = SwingScenario(seed: 41, actions: actions, options: options)
        let events = SwingEvaluation.detect(scenario)
        #expect(events.count == 2, "\(events)")
        #expect(!events.contains { abs($0.startTimestamp - scenario.groundTruth[0].startTimestamp) < 0.1 })
        #expect(events.allSatisfy { event in scenario.groundTruth.dropFirst().contains { SwingEvaluation.matches(event, $0) } })
    }

    @Test("a lost device-motion batch makes its swing unmeasurable; the rest are unaffected")
    func lostMotionBatch() throws {
        let actions: [SwingScenario.Action] = [.idle(seconds: 1), .swing(contact: true, placement: .insideBatch), .swing(contact: false), .swing(contact: true)]
        let complete = SwingScenario(seed: 42, actions: actions)
        let lost = try #require(Self.batchIndex(of: .deviceMotion, containing: complete.groundTruth[0].startTimestamp, in: complete))
        var options = SwingScenario.Options()
        options.droppedBatches = [SwingScenario.BatchID(.deviceMotion, lost)]
        let scenario = SwingScenario(seed: 42, actions: actions, options: options)
        let events = SwingEvaluation.detect(scenario)
        #expect(events.count == 2, "\(events)")
        #expect(events.allSatisfy { event in scenario.groundTruth.dropFirst().contains { SwingEvaluation.matches(event, $0) } })
    }

    @Test("coverage: a gap or a range outside the window is not covered")
    func coverage() {
        var window = BatchAlignmentWindow(configuration: SwingConfiguration())
        window.append(accelerometer: SwingSignals.accelerometer(from: 10, to: 11) { _ in -1 })
        window.append(accelerometer: SwingSignals.accelerometer(from: 11.2, to: 12) { _ in -1 })
        #expect(window.accelerometerCovers(from: 10.1, through: 10.9))
        #expect(window.accelerometerCovers(from: 11.3, through: 11.9))
        #expect(!window.accelerometerCovers(from: 10.9, through: 11.3), "the 0.2 s hole")
        #expect(!window.accelerometerCovers(from: 9.5, through: 10.5), "before the first sample")
        #expect(!window.accelerometerCovers(from: 11.5, through: 12.5), "after the last sample")
        window.append(accelerometer: SwingSignals.accelerometer(from: 10.5, to: 10.6) { _ in 5 })
        #expect(window.staleSamples == 80, "older samples are dropped")
        #expect(!window.motionCovers(from: 10.1, through: 10.2), "no device motion yet")
    }

    @Test("replayed and duplicated batches are ignored")
    func duplicates() {
        let scenario = SwingScenario(seed: 43, actions: Self.actions)
        var doubled: [SwingScenario.Batch] = []
        for (index, batch) in scenario.arrivals.enumerated() {
            doubled.append(batch)
            doubled.append(batch)
            if index >= 4 { doubled.append(scenario.arrivals[index - 4]) }
        }
        #expect(SwingEvaluation.detect(doubled) == SwingEvaluation.detect(scenario))
    }

    /// The position in its stream of the batch holding `timestamp`.
    static func batchIndex(of stream: SwingScenario.Stream, containing timestamp: Double, in scenario: SwingScenario) -> Int? {
        for batch in scenario.arrivals {
            switch batch {
            case .accelerometer(let batch) where stream == .accelerometer:
                if let first = batch.samples.first, let last = batch.samples.last, first.timestamp <= timestamp, last.timestamp >= timestamp {
                    return batch.sequence.map { Int($0) - 1 }
                }
            case .deviceMotion(let batch) where stream == .deviceMotion:
                if let first = batch.samples.first, let last = batch.samples.last, first.timestamp <= timestamp, last.timestamp >= timestamp {
                    return batch.sequence.map { Int($0) - 1 }
                }
            default: continue
            }
        }
        return nil
    }
}
