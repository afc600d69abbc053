import Testing
import TelemetrySimulation

@testable import TelemetryCore

/// The simulator's tremor scenarios through the analyzer, minute by minute, against their ground
/// truth (the class each minute was generated in), and the scenario's frames.
@Suite("Tremor scenarios against their ground truth")
struct TremorScenarioTests {
    static let analyzer = TremorAnalyzer()
    static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6, 7, 8]

    @Test("the analyzer grades ≥ 90 % of tremor minutes and every tremor-free minute as generated", arguments: seeds)
    func accuracy(seed: UInt64) throws {
        let scenario = TremorScenario(seed: seed)
        var tremorMinutes = 0
        var matched = 0
        var report: [String] = []
        for (index, truth) in scenario.minutes.enumerated() {
            let result = Self.analyzer.analyze(samples: scenario.samples(inMinute: index), from: truth.startDate, to: truth.endDate)
            #expect(result.unknown + result.none + result.slight + result.mild + result.moderate + result.strong == 1)
            let graded = result.predominantSeverity
            report.append(
                "minute \(index): truth \(truth.severity) \(truth.frequency.map { "\($0) Hz" } ?? "") got \(graded.map(\.name) ?? "nil") "
                    + "f=\(result.dominantFrequency.map { "\($0)" } ?? "-") pp=\(result.displacement.map { "\($0)" } ?? "-") counts=\(result.windowCounts)")
            if truth.severity.isTremor {
                tremorMinutes += 1
                if graded == truth.severity { matched += 1 }
                if graded == truth.severity, let frequency = truth.frequency, let measured = result.dominantFrequency {
                    #expect(abs(measured - frequency) <= 0.2, "seed \(seed) minute \(index): \(measured) Hz vs \(frequency) Hz")
                }
                if let peakToPeak = truth.peakToPeak {
                    let measured = result.displacement ?? 0
                    #expect(abs(measured - peakToPeak) <= 0.1 * peakToPeak, "seed \(seed) minute \(index): \(measured) cm vs \(peakToPeak) cm")
                }
            } else {
                #expect(graded == TremorSeverity.none, "seed \(seed) minute \(index): \(report.last ?? "")")
            }
        }
        #expect(tremorMinutes > 0)
        #expect(Double(matched) >= 0.9 * Double(tremorMinutes), "seed \(seed): \(matched)/\(tremorMinutes)\n\(report.joined(separator: "\n"))")
    }

    @Test("the ground truth: aligned minutes, every class, 50 Hz boot-relative samples, gaps and movements labelled")
    func groundTruth() throws {
        let scenario = TremorScenario(seed: 3, startDate: 1_767_225_631.5)
        #expect(scenario.startDate == 1_767_225_600)
        #expect(scenario.minutes.count == 10)
        #expect(scenario.minutes.map(\.startDate) == (0..<10).map { 1_767_225_600 + Double($0) * 60 })
        let classes = scenario.minutes.map(\.severity)
        #expect(classes.filter { $0 == TremorSeverity.none }.count == 2)
        for severity in [TremorSeverity.slight, .mild, .moderate, .strong] { #expect(classes.filter { $0 == severity }.count == 2) }
        for truth in scenario.minutes where truth.severity.isTremor {
            let frequency = try #require(truth.frequency)
            #expect(TremorScenario.frequencyRange(for: truth.severity).contains(frequency))
            #expect(truth.peakToPeak == TremorScenario.peakToPeak(for: truth.severity))
            #expect(truth.direction.map { abs($0.norm - 1) < 1e-9 } == true)
        }
        for sample in scenario.samples.prefix(500) {
            #expect(abs(sample.timestamp - (sample.startDate - scenario.bootDate)) < 2e-6)
        }
        for (earlier, later) in zip(scenario.samples, scenario.samples.dropFirst()) {
            let step = later.startDate - earlier.startDate
            #expect(step > 0.0199 && (abs(step - 0.02) < 1e-5 || step > 0.99), "50 Hz except across gaps: \(step)")
        }
        // Every gap is missing from the samples, and labelled.
        var gapSeconds = 0
        for (index, truth) in scenario.minutes.enumerated() {
            let samples = scenario.samples(inMinute: index)
            for gap in truth.gaps {
                #expect(!samples.contains { gap.contains($0.startDate - truth.startDate) })
            }
            let seconds = truth.seconds
            #expect(seconds.count == 60)
            gapSeconds += seconds.filter { $0 == .gap }.count
            for span in truth.voluntary {
                #expect(seconds[Int(span.lowerBound)] == .voluntary || seconds[Int(span.lowerBound)] == .gap)
            }
        }
        #expect(gapSeconds > 0)
        #expect(scenario.minutes.contains { !$0.voluntary.isEmpty })
    }

    @Test("the same seed gives the same samples; another seed or device differs")
    func determinism() {
        #expect(TremorScenario(seed: 9) == TremorScenario(seed: 9))
        #expect(TremorScenario(seed: 9).samples != TremorScenario(seed: 10).samples)
        #expect(TremorScenario(deviceId: "watch-a", seed: 9).samples != TremorScenario(deviceId: "watch-b", seed: 9).samples)
        var options = TremorScenario.Options()
        options.minutes = 3
        options.tremorFreeMinutes = 3
        let quiet = TremorScenario(seed: 1, options: options)
        #expect(quiet.minutes.allSatisfy { $0.severity == TremorSeverity.none && $0.frequency == nil })
    }

    @Test("chunks hold ≤ 150 samples, every sample once, in order, with identifiers rising by one")
    func chunks() {
        let scenario = TremorScenario(seed: 4)
        let chunks = scenario.chunks()
        #expect(chunks.allSatisfy { !$0.samples.isEmpty && $0.samples.count <= 150 })
        #expect(chunks.flatMap(\.samples) == scenario.samples)
        #expect(chunks.map(\.identifier) == (0..<chunks.count).map { scenario.firstIdentifier + UInt64($0) })
        #expect(chunks.count >= 200)
        #expect(scenario.chunks(samplesPerChunk: 3_000).count >= 10)
    }

    @Test("frames: a hello, then chunks the gateway's decoder and validator accept, with a duplicate and a swapped pair on request")
    func frames() throws {
        let scenario = TremorScenario(seed: 5)
        let plain = scenario.frames()
        let count = scenario.chunks().count
        #expect(plain.count == count + 1)
        #expect(plain[0].stream == "hello" && plain[0].retain)
        #expect(plain.dropFirst().allSatisfy { $0.stream == "recorder/accelerometer" && $0.qos == .atLeastOnce && !$0.retain })
        #expect(plain[1].topic() == "wearables/watch-tremor/recorder/accelerometer")
        var decoded: [RecordedAccelerometerChunk] = []
        for frame in plain.dropFirst() {
            guard case .success(let value) = FrameDecoder.decodeJSON(frame.payload, stream: .recorderAccelerometer) else {
                Issue.record("a chunk did not decode")
                return
            }
            #expect(FrameValidator.validate(value) == nil)
            if case .recorderAccelerometer(let chunk) = value { decoded.append(chunk) }
        }
        #expect(decoded.map(\.sequence) == (1...count).map { UInt64($0) })
        #expect(decoded.flatMap(\.samples).count == scenario.samples.count)
        #expect(zip(plain, plain.dropFirst()).allSatisfy { $0.time <= $1.time })

        var delivery = TremorScenario.Delivery()
        delivery.duplicateChunk = true
        delivery.reorderChunks = true
        let messy = scenario.frames(delivery: delivery)
        #expect(messy.count == count + 2)
        #expect(zip(messy, messy.dropFirst()).allSatisfy { $0.time <= $1.time })
        let payloads = messy.dropFirst().map(\.payload)
        #expect(Set(payloads).count == count, "one chunk twice")
        let sequences = try payloads.map { payload -> UInt64 in
            guard case .success(.recorderAccelerometer(let chunk)) = FrameDecoder.decodeJSON(payload, stream: .recorderAccelerometer) else {
                throw CancellationError()
            }
            return chunk.sequence ?? 0
        }
        #expect(zip(sequences, sequences.dropFirst()).filter { $0 > $1 }.count == 1, "one pair out of order: \(sequences)")
        #expect(zip(sequences, sequences.dropFirst()).filter { $0 == $1 }.count == 1, "one redelivery")
        #expect(Set(sequences) == Set((1...count).map { UInt64($0) }))
    }
}
