import Foundation
import Testing
import TelemetrySimulation

@testable import TelemetryCore

private func payload(_ message: OutboundMessage?) -> [String: Any] {
    guard let message, let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any] else { return [:] }
    return object
}

/// The simulator's dive scenarios through the deriver, compared with their ground truth (the
/// contract's rule as the simulation computes it, not the gateway's state machine).
@Suite("Submersion scenarios against their ground truth")
struct SubmersionScenarioTests {
    static let presets = DiveScenario.presets

    @Test("each preset's ground truth is the sequence it was designed for", arguments: presets)
    func groundTruthMatchesDesign(scenario: DiveScenario) throws {
        let nominal = try #require(scenario.nominalDepthStates)
        #expect(scenario.expectedDepthStates() == nominal, "\(scenario.name)")
    }

    @Test("each preset yields exactly its states, one dive, its ascent warnings and safety-stop hint", arguments: presets)
    func preset(scenario: DiveScenario) throws {
        var feed = SubmersionFeed(device: scenario.deviceId, maximumDepth: scenario.maximumDepth)
        feed.feed(scenario)
        #expect(feed.states == scenario.expectedDepthStates(), "\(scenario.name)")
        let dives = feed.messages("submersion/dive")
        try #require(dives.count == 1, "\(scenario.name)")
        let dive = payload(dives[0])
        #expect(dive["endReason"] as? String == "surfaced")
        // Foundation's JSON parser may be an ulp off on 17-digit numbers.
        #expect(abs(((dive["maxDepth"] as? NSNumber)?.doubleValue ?? 0) - scenario.reportedMaxDepth()) < 1e-9, "\(scenario.name)")
        let startDate = 1_700_000_000 + scenario.submergeTime
        let endDate = 1_700_000_000 + scenario.surfaceTime
        #expect(abs(((dive["startDate"] as? NSNumber)?.doubleValue ?? 0) - startDate) < 0.001)
        #expect(abs(((dive["endDate"] as? NSNumber)?.doubleValue ?? 0) - endDate) < 0.001)
        let deepest = scenario.expectedDepthStates().max { $0.rawValue < $1.rawValue }
        #expect(dive["deepestState"] as? String == deepest?.name)
        #expect(feed.messages("submersion/ascent-warning").count == scenario.expectedAscentWarnings, "\(scenario.name)")
        #expect(feed.messages("submersion/safety-stop").count == (scenario.expectsSafetyStopHint == true ? 1 : 0), "\(scenario.name)")
        let submergedReadings = scenario.observations().filter {
            if case .temperature = $0.observation { return true }
            return false
        }
        #expect(feed.messages("submersion/temperature").count == submergedReadings.count)
        #expect(feed.deriver.counters.stale == 0 && feed.deriver.counters.duplicate == 0)
    }

    @Test("without hysteresis the boundary-noise scenario would flap; with it the state changes once")
    func boundaryNoise() {
        let scenario = DiveScenario.boundaryNoise()
        let flapping = scenario.expectedDepthStates(hysteresis: 0)
        #expect(flapping.count > 7, "\(flapping)")
        var configuration = SubmersionConfiguration()
        configuration.hysteresis = 0
        var feed = SubmersionFeed(device: scenario.deviceId, maximumDepth: 6, configuration: configuration)
        feed.feed(scenario)
        #expect(feed.states == flapping)
    }

    @Test("the 7 m dive goes through sensorDepthError, where measurements carry no depth")
    func sensorError() {
        let scenario = DiveScenario.sensorDepthError()
        let blind = scenario.observations().filter {
            if case .measurement(let measurement) = $0.observation { return measurement.submersionState == .sensorDepthError }
            return false
        }
        #expect(!blind.isEmpty)
        for case .measurement(let measurement) in blind.map(\.observation) {
            #expect(measurement.depth == nil && measurement.pressure == nil)
        }
        #expect(scenario.reportedMaxDepth() <= 6.6)
    }

    @Test("random dives: the deriver's states equal the contract's rule", arguments: 0..<8)
    func randomDives(batch: Int) {
        for seed in UInt64(batch * 8)..<UInt64(batch * 8 + 8) {
            let scenario = DiveScenario.random(seed: seed)
            var feed = SubmersionFeed(device: scenario.deviceId, maximumDepth: scenario.maximumDepth)
            feed.feed(scenario)
            #expect(feed.states == scenario.expectedDepthStates(), "seed \(seed): \(scenario.legs)")
            #expect(feed.messages("submersion/dive").count == 1, "seed \(seed)")
        }
    }

    @Test("a redelivered and shuffled copy of a dive yields the same states and summary")
    func redelivery() throws {
        let scenario = DiveScenario.pastMaxDepth()
        var clean = SubmersionFeed(device: scenario.deviceId, maximumDepth: 6)
        clean.feed(scenario)
        var noisy = SubmersionFeed(device: scenario.deviceId, maximumDepth: 6)
        var random = SplitMix64(seed: 9)
        var previous: DecodedFrame?
        for (_, observation) in scenario.observations(startDate: 1_700_000_000) {
            let frame: DecodedFrame =
                switch observation {
                case .event(let event): .submersionEvent(event, sequence: nil)
                case .measurement(let measurement): .submersionMeasurement(measurement, sequence: nil)
                case .temperature(let reading): .submersionTemperature(reading, sequence: nil)
                }
            noisy.frame(frame)
            if random.next() % 5 == 0 { noisy.frame(frame) }  // QoS 1 redelivery
            if let previous, random.next() % 7 == 0 { noisy.frame(previous) }  // a late copy of an older frame
            previous = frame
        }
        #expect(noisy.states == clean.states)
        let cleanDive = payload(clean.messages("submersion/dive").first)
        let noisyDive = payload(noisy.messages("submersion/dive").first)
        for key in ["startDate", "endDate", "maxDepth", "duration", "deepestState", "minTemperature", "lastTemperature", "measurements", "eventId"] {
            #expect(String(describing: cleanDive[key]) == String(describing: noisyDive[key]), "\(key)")
        }
        #expect(noisy.deriver.counters.duplicate + noisy.deriver.counters.stale > 0)
        #expect(noisy.messages("submersion/depth-state").map(\.payload) == clean.messages("submersion/depth-state").map(\.payload))
    }

    @Test("scenario frames are valid contract JSON, hello first and retained")
    func framesDecode() throws {
        for scenario in Self.presets {
            let frames = scenario.frames(startDate: 1_700_000_000)
            #expect(frames.first?.stream == "hello" && frames.first?.retain == true)
            for frame in frames {
                let stream = try #require(InboundStream(rawValue: frame.stream))
                let decoded = try FrameDecoder.decodeJSON(frame.payload, stream: stream).get()
                #expect(FrameValidator.validate(decoded, limits: ValidationLimits()) == nil, "\(scenario.name) \(frame.stream)")
            }
        }
    }
}

extension DiveScenario: CustomTestStringConvertible {
    public var testDescription: String { name }
}
