import Foundation
import Testing
import TelemetrySimulation

@testable import TelemetryCore

private func object(_ bytes: [UInt8]) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
}

private func number(_ object: [String: Any]?, _ key: String) -> Double? {
    (object?[key] as? NSNumber)?.doubleValue
}

/// Tremor results: fractions that add up to exactly 1, the outbound payloads, the settings.
@Suite("Tremor results")
struct TremorResultTests {
    static let device = DeviceID("watch-1")!

    // MARK: Fractions

    @Test("fractions from random window counts add up to exactly 1 in any order and stay within 2⁻¹⁶ of count/total")
    func apportionedFractions() {
        var random = SplitMix64(seed: 42)
        for _ in 0..<2_000 {
            let counts = (0..<6).map { _ in random.next() % 3 == 0 ? 0 : Int(random.next() % 40) }
            let result = TremorResult(startDate: 0, endDate: 60, windowCounts: counts)
            let fractions = TremorSeverity.allCases.map(result.fraction)
            #expect(fractions.reduce(0, +) == 1, "\(counts) → \(fractions)")
            #expect(fractions.reversed().reduce(0, +) == 1)
            #expect(fractions.sorted().reduce(0, +) == 1)
            let total = counts.reduce(0, +)
            for (count, fraction) in zip(counts, fractions) {
                if total == 0 {
                    continue
                }
                #expect(abs(fraction - Double(count) / Double(total)) < 1.0 / 65_536)
                #expect((count == 0) == (fraction == 0))
            }
            if total == 0 { #expect(result.unknown == 1) }
        }
    }

    @Test("randomized inputs (empty, gaps, duplicates, extremes, odd intervals) always give fractions summing to exactly 1")
    func randomizedAnalyses() {
        let analyzer = TremorAnalyzer()
        var random = SplitMix64(seed: 7)
        let start = TremorSignals.start
        for round in 0..<150 {
            let seconds = [0, 1, 2, 7, 10, 20, 60][Int(random.next() % 7)] + random.nextDouble(in: 0...1)
            let scale = [0.0, 0.01, 1, 20, 1e6, 1e150, 1e300][Int(random.next() % 7)]
            var samples: [RecordedAccelerometerSample] = []
            let count = Int(random.next() % 3_200)
            var time = random.nextDouble(in: -1...1)
            for _ in 0..<count {
                time += [0.02, 0.02, 0.02, 0, 0.5, -0.3, 0.019][Int(random.next() % 7)]
                let value = Vector3(x: random.nextGaussian() * scale, y: random.nextGaussian() * scale, z: random.nextGaussian() * scale - 1)
                samples.append(RecordedAccelerometerSample(timestamp: 1_000 + time, startDate: start + time, acceleration: value))
            }
            let result = analyzer.analyze(samples: samples, from: start, to: start + seconds)
            let sum = TremorSeverity.allCases.map(result.fraction).reduce(0, +)
            #expect(sum == 1, "round \(round): \(result.windowCounts)")
            #expect(result.windowCount == Int(seconds / 2))
            #expect(TremorSeverity.allCases.allSatisfy { result.fraction($0) >= 0 && result.fraction($0).isFinite })
            #expect(result.dominantFrequency.map { $0 >= 3 && $0 <= 7 } ?? true)
            #expect(result.displacement.map { $0.isFinite && $0 > 0 } ?? true)
            #expect((result.dominantFrequency == nil) == (result.tremorWindows == 0))
        }
    }

    @Test("the predominant class is the graded class with the largest fraction, the more severe on a tie")
    func predominant() {
        #expect(TremorResult(startDate: 0, endDate: 60, windowCounts: [20, 4, 6, 0, 0, 0]).predominantSeverity == .slight)
        #expect(TremorResult(startDate: 0, endDate: 60, windowCounts: [0, 15, 0, 0, 15, 0]).predominantSeverity == .moderate)
        #expect(TremorResult(startDate: 0, endDate: 60, windowCounts: [30, 0, 0, 0, 0, 0]).predominantSeverity == nil)
        #expect(TremorResult(startDate: 0, endDate: 60, windowCounts: [0, 30, 0, 0, 0, 0]).predominantSeverity == TremorSeverity.none)
    }

    // MARK: Payloads

    static let sample = TremorResult(
        startDate: 1_767_225_600, endDate: 1_767_225_660, windowCounts: [3, 2, 0, 25, 0, 0], voluntaryWindows: 2, dominantFrequency: 4.62,
        displacement: 1.974, sampleCount: 2_950)

    @Test("gateway/{id}/tremor: QoS 1, not retained, every field, fractions that parse back to a sum of 1")
    func message() throws {
        let message = Self.sample.message(device: Self.device, scheme: TopicScheme())
        #expect(message.topic == "gateway/watch-1/tremor")
        #expect(message.qos == .atLeastOnce && !message.retain)
        let json = try #require(object(message.payload))
        #expect(json["deviceId"] as? String == "watch-1")
        let eventID = try #require(json["eventId"] as? String)
        #expect(eventID.count == 16 && eventID.allSatisfy(\.isHexDigit))
        #expect(number(json, "startDate") == 1_767_225_600 && number(json, "endDate") == 1_767_225_660)
        let fractions = TremorSeverity.allCases.compactMap { number(json, $0.name) }
        #expect(fractions.count == 6 && fractions.reduce(0, +) == 1)
        #expect(number(json, "mild") == Self.sample.mild)
        #expect(number(json, "dominantFrequency") == 4.62 && number(json, "displacement") == 1.974)
        #expect(number(json, "windows") == 30 && number(json, "voluntaryWindows") == 2 && number(json, "samples") == 2_950)
        #expect(TopicScheme(inboundRoot: "acme/in", outboundRoot: "acme/out").tremorTopic(Self.device) == "acme/out/watch-1/tremor")
    }

    @Test("without tremor the frequency and displacement are left out")
    func optionalFields() throws {
        let quiet = TremorResult(startDate: 0, endDate: 60, windowCounts: [0, 30, 0, 0, 0, 0])
        let json = try #require(object(quiet.message(device: Self.device, scheme: TopicScheme()).payload))
        #expect(json["dominantFrequency"] == nil && json["displacement"] == nil)
        #expect(number(json, "none") == 1 && number(json, "unknown") == 0)
    }

    @Test("the event id is deterministic and changes with the interval and the samples analysed")
    func eventID() {
        let id = Self.sample.eventID(device: Self.device)
        #expect(id == Self.sample.eventID(device: Self.device))
        var more = Self.sample
        more.sampleCount += 50
        var later = Self.sample
        later.startDate += 60
        later.endDate += 60
        #expect(Set([id, more.eventID(device: Self.device), later.eventID(device: Self.device), Self.sample.eventID(device: DeviceID("watch-2")!)]).count == 4)
    }

    @Test("a response carries several results with the caller's extra fields")
    func response() throws {
        var second = Self.sample
        second.startDate += 60
        second.endDate += 60
        let payload = TremorResult.responsePayload([Self.sample, second], device: Self.device) { $0.field("requestId", "r-7") }
        let json = try #require(object(payload))
        #expect(json["deviceId"] as? String == "watch-1" && json["requestId"] as? String == "r-7")
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.count == 2)
        #expect(number(results[1], "startDate") == 1_767_225_660)
        var writer = JSONWriter()
        Self.sample.write(to: &writer, device: Self.device)
        #expect(object(writer.bytes)?["eventId"] as? String == results[0]["eventId"] as? String)
        let empty = try #require(object(TremorResult.responsePayload([], device: Self.device)))
        #expect((empty["results"] as? [Any])?.isEmpty == true)
    }

    // MARK: Settings

    @Test("the defaults are usable; bad settings name their key")
    func configurationProblems() {
        #expect(TremorConfiguration().configurationProblem == nil)
        #expect(TremorConfiguration().frequencies.count == 251)
        #expect(TremorConfiguration().frequencies.filter { TremorConfiguration().isInBand($0) }.count == 201)
        #expect(TremorConfiguration().samplesPerWindow == 100)
        var cases: [(WritableKeyPath<TremorConfiguration, Double>, Double, String)] = [
            (\.windowLength, 0, "windowLength"), (\.windowLength, 0.5, "windowLength"), (\.minCoverage, 1.5, "minCoverage"),
            (\.minDisplacement, -1, "minDisplacement"), (\.minProminence, 0.5, "minProminence"), (\.bandLow, 8, "bandLow"),
            (\.bandHigh, 30, "bandHigh"), (\.frequencyStep, 5, "frequencyStep"), (\.voluntaryThreshold, .nan, "voluntaryThreshold"),
        ]
        cases.append((\.sampleRate, 0, "sampleRate"))
        cases.append((\.bandMargin, 3.5, "bandMargin"))
        cases.append((\.bandMargin, -0.1, "bandMargin"))
        for (path, value, name) in cases {
            var configuration = TremorConfiguration()
            configuration[keyPath: path] = value
            #expect(configuration.configurationIssue?.key == "derivation.tremor.\(name)", "\(name) = \(value)")
            #expect(configuration.configurationProblem?.hasPrefix("derivation.tremor.\(name) ") == true)
        }
    }

    @Test("another window length and grid work the same way")
    func otherSettings() {
        var configuration = TremorConfiguration()
        configuration.windowLength = 3
        configuration.frequencyStep = 0.05
        let analyzer = TremorAnalyzer(configuration: configuration)
        let tremor = TremorSignals.Tremor(peakToPeak: 6, frequency: 5.3, direction: Vector3(x: 1, y: 1, z: 1))
        let result = analyzer.analyze(samples: TremorSignals.samples(tremor: tremor, noise: 0.005), from: TremorSignals.start, to: TremorSignals.start + 60)
        #expect(result.windowCount == 20 && result.moderate == 1)
        #expect(abs((result.dominantFrequency ?? 0) - 5.3) <= 0.05)
    }
}
