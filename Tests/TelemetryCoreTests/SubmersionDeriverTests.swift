import Foundation
import Testing

@testable import TelemetryCore

/// The payload as a JSON object (parsed with Foundation, independently of the gateway).
private func payload(_ message: OutboundMessage?) -> [String: Any] {
    guard let message, let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any] else { return [:] }
    return object
}

private func number(_ object: [String: Any], _ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }

@Suite("Submersion deriver: topics, dives, temperature")
struct SubmersionDeriverTests {
    /// A dive to 5.5 m (M = 6) with temperature readings, dated 100…150.
    private static func standardDive() -> SubmersionFeed {
        var feed = SubmersionFeed()
        feed.event(100, .notSubmerged)
        feed.temperature(105, 25, uncertainty: 2)  // not submerged: not republished
        feed.event(110, .submerged)
        feed.measurement(111, depth: 0.5)
        feed.temperature(111, 22.0, uncertainty: 1.2)
        feed.measurement(112, depth: 1.2)
        feed.temperature(112.5, 20.5, uncertainty: 0.4)
        feed.measurement(120, depth: 5.5)
        feed.temperature(121, 20.8, uncertainty: 0.3)
        feed.measurement(130, depth: 3.0)
        feed.temperature(135, 20.9, uncertainty: 0.6)
        feed.measurement(140, depth: 0.5)
        feed.temperature(141, 21.0, uncertainty: 0.25)
        feed.event(150, .notSubmerged)
        feed.measurement(151, depth: nil, state: .notSubmerged)
        feed.temperature(152, 24, uncertainty: 0.2)  // surfaced: not republished
        return feed
    }

    @Test("depth-state is retained QoS 1 with state, rawValue, previous, depth, maximumDepth, date and eventId")
    func depthStatePayload() throws {
        let feed = Self.standardDive()
        #expect(feed.states == [.notSubmerged, .submergedShallow, .submergedDeep, .approachingMaxDepth, .submergedDeep, .submergedShallow, .notSubmerged])
        let messages = feed.messages("submersion/depth-state")
        for message in messages {
            #expect(message.retain)
            #expect(message.qos == .atLeastOnce)
            #expect(message.contentType == "application/json")
        }
        let deep = payload(messages[2])
        #expect(deep["deviceId"] as? String == "dive-1")
        #expect(deep["state"] as? String == "submergedDeep")
        #expect(deep["rawValue"] as? Int == 300)
        #expect(deep["previous"] as? String == "submergedShallow")
        #expect(deep["previousRawValue"] as? Int == 200)
        #expect(number(deep, "depth") == 1.2)
        #expect(number(deep, "maximumDepth") == 6)
        #expect(deep["cause"] as? String == "measurement")
        #expect(number(deep, "date") == 112)
        #expect((deep["eventId"] as? String)?.count == 16)
        let entry = payload(messages[1])
        #expect(entry["cause"] as? String == "event")
        #expect(entry["depth"] == nil, "an event carries no depth")
        #expect(entry["previous"] as? String == "notSubmerged")
        #expect(payload(messages[0])["previous"] as? String == "unknown")
        #expect(Set(messages.map { payload($0)["eventId"] as? String }).count == messages.count)
    }

    @Test("the dive summary has dates, duration, maximum depth, time per state and temperatures")
    func diveSummary() throws {
        let feed = Self.standardDive()
        let dives = feed.messages("submersion/dive")
        try #require(dives.count == 1)
        #expect(!dives[0].retain)
        #expect(dives[0].qos == .atLeastOnce)
        let dive = payload(dives[0])
        #expect(number(dive, "startDate") == 110)
        #expect(number(dive, "endDate") == 150)
        #expect(number(dive, "date") == 150)
        #expect(number(dive, "duration") == 40)
        #expect(dive["endReason"] as? String == "surfaced")
        #expect(number(dive, "maxDepth") == 5.5)
        #expect(dive["deepestState"] as? String == "approachingMaxDepth")
        #expect(number(dive, "maximumDepth") == 6)
        let times = try #require(dive["timeInState"] as? [String: Any])
        #expect(number(times, "submergedShallow") == 12)
        #expect(number(times, "submergedDeep") == 18)
        #expect(number(times, "approachingMaxDepth") == 10)
        #expect(number(times, "pastMaxDepth") == 0)
        #expect(number(times, "sensorDepthError") == 0)
        #expect(number(dive, "minTemperature") == 20.5)
        #expect(number(dive, "minTemperatureUncertainty") == 0.4)
        #expect(number(dive, "lastTemperature") == 21.0)
        #expect(number(dive, "lastTemperatureUncertainty") == 0.25)
        #expect(dive["measurements"] as? Int == 5)
        #expect(dive["ascentWarnings"] as? Int == 0)
        #expect(dive["safetyStop"] as? String == "notRequired")
        #expect(number(dive, "longestSafetyStop") == 10, "5.5 m at 120 s and 3.0 m at 130 s are in the 3–6 m band")
        #expect(dive["staleInputs"] as? Int == 0)
        #expect(dive["duplicateInputs"] as? Int == 0)
        #expect(dive["eventId"] as? String == EventID.make("dive-1", "submersion/dive", "110.0", "150.0"))
        #expect(feed.messages("submersion/safety-stop").isEmpty)
        #expect(feed.deriver.dive == nil)
    }

    @Test("temperature is republished only while submerged, converged once below the bound, with the last depth")
    func temperature() throws {
        let feed = Self.standardDive()
        let readings = feed.messages("submersion/temperature").map { payload($0) }
        #expect(readings.compactMap { number($0, "date") } == [111, 112.5, 121, 135, 141])
        #expect(readings.compactMap { $0["converged"] as? Bool } == [false, true, true, true, true], "0.6 °C after convergence stays converged")
        #expect(readings.compactMap { number($0, "depth") } == [0.5, 1.2, 5.5, 3.0, 0.5])
        #expect(number(readings[0], "temperature") == 22.0)
        #expect(number(readings[0], "temperatureUncertainty") == 1.2)
        #expect(readings[0]["deviceId"] as? String == "dive-1")
        #expect(readings[0]["eventId"] as? String == EventID.make("dive-1", "submersion/temperature", "111.0"))
        for message in feed.messages("submersion/temperature") {
            #expect(!message.retain)
            #expect(message.qos == .atLeastOnce)
        }
        #expect(feed.deriver.counters.ignored == 2, "the two readings at the surface")
    }

    @Test("the convergence bound is configurable and resets with each dive")
    func convergenceBound() {
        var configuration = SubmersionConfiguration()
        configuration.temperatureConvergedBelow = 0.3
        var feed = SubmersionFeed(configuration: configuration)
        feed.event(0, .submerged)
        feed.temperature(1, 20, uncertainty: 0.4)
        feed.temperature(2, 20, uncertainty: 0.29)
        feed.event(3, .notSubmerged)
        feed.event(4, .submerged)
        feed.temperature(5, 20, uncertainty: 0.29)
        feed.temperature(6, 20, uncertainty: 0.3)
        let flags = feed.messages("submersion/temperature").compactMap { payload($0)["converged"] as? Bool }
        #expect(flags == [false, true, true, true])
        var second = SubmersionFeed(configuration: configuration)
        second.event(0, .submerged)
        second.temperature(1, 20, uncertainty: 0.1)
        second.event(3, .notSubmerged)
        second.event(4, .submerged)
        second.temperature(5, 20, uncertainty: 0.5)
        #expect(second.messages("submersion/temperature").compactMap { payload($0)["converged"] as? Bool } == [true, false])
    }

    @Test("reprocessing the same input gives byte-identical messages and event ids")
    func deterministic() {
        let first = Self.standardDive().published
        let second = Self.standardDive().published
        #expect(first == second)
        #expect(first.count == 7 + 1 + 5)
    }

    @Test("out-of-order and duplicate inputs are dropped, counted, and reported in the dive summary")
    func staleAndDuplicates() throws {
        var feed = SubmersionFeed()
        feed.event(0, .notSubmerged)
        feed.event(10, .submerged)
        feed.measurement(11, depth: 2)
        #expect(feed.measurement(11, depth: 2).isEmpty)  // redelivery
        #expect(feed.measurement(10.5, depth: 0.3).isEmpty)  // late
        #expect(feed.event(10, .submerged).isEmpty)  // redelivered event
        #expect(feed.event(5, .notSubmerged).isEmpty)  // late event: would end the dive
        feed.temperature(12, 20, uncertainty: 1)
        #expect(feed.temperature(12, 19, uncertainty: 1).isEmpty)
        #expect(feed.temperature(11.5, 19, uncertainty: 1).isEmpty)
        #expect(feed.temperature(9, 19, uncertainty: 1).isEmpty, "older than the submerged event")
        feed.measurement(13, depth: 1.5)
        feed.event(20, .notSubmerged)
        #expect(feed.states == [.notSubmerged, .submergedShallow, .submergedDeep, .notSubmerged])
        #expect(feed.deriver.counters.duplicate == 3)
        #expect(feed.deriver.counters.stale == 4)
        let dive = payload(feed.messages("submersion/dive").first)
        #expect(dive["duplicateInputs"] as? Int == 3)
        #expect(dive["staleInputs"] as? Int == 4)
        #expect(number(dive, "maxDepth") == 2)
        #expect(dive["measurements"] as? Int == 2)
        #expect(number(dive, "minTemperature") == 20)
    }

    @Test("a device without a maximum depth (no submersion entitlement) gets no state")
    func withoutMaximumDepth() {
        var feed = SubmersionFeed(maximumDepth: nil)
        feed.event(0, .submerged)
        feed.measurement(1, depth: 3, state: .submergedDeep)
        feed.temperature(1, 20, uncertainty: 0.2)
        #expect(feed.published.isEmpty)
        #expect(feed.deriver.counters.withoutMaximumDepth == 3)
        #expect(feed.deriver.machine.state == .unknown)
    }

    @Test("other streams are ignored")
    func otherStreams() {
        var feed = SubmersionFeed()
        #expect(feed.frame(.altimeter(AltitudeSample(timestamp: 1, relativeAltitude: 0, pressure: 101), sequence: nil)).isEmpty)
        #expect(feed.deriver.counters == SubmersionCounters())
    }

    // MARK: Silence

    @Test("after the configured silence an open dive ends: depth state unknown, summary with endReason silence")
    func silence() throws {
        var configuration = SubmersionConfiguration()
        configuration.diveEndSilence = 30
        var feed = SubmersionFeed(configuration: configuration)
        feed.receivedAt = 5_000
        feed.event(100, .submerged)
        feed.measurement(101, depth: 3)
        let lastArrival = feed.receivedAt
        #expect(feed.tick(at: lastArrival + 29.5).isEmpty)
        let ended = feed.tick(at: lastArrival + 30.5)
        #expect(ended.map(\.topic) == ["gateway/dive-1/submersion/depth-state", "gateway/dive-1/submersion/dive"])
        let state = payload(ended.first)
        #expect(state["state"] as? String == "unknown")
        #expect(state["rawValue"] as? Int == 0)
        #expect(state["previous"] as? String == "submergedDeep")
        #expect(state["cause"] as? String == "silence")
        #expect(number(state, "date") == 101, "dated at the last input")
        #expect(number(state, "maximumDepth") == 6, "remembered from the frames")
        let dive = payload(ended.last)
        #expect(dive["endReason"] as? String == "silence")
        #expect(number(dive, "endDate") == 101)
        #expect(number(dive, "duration") == 1)
        #expect(feed.tick(at: lastArrival + 1_000).isEmpty, "once")
        // Data resumes mid-dive: the measurement's own state re-enters the water (a new dive).
        feed.measurement(200, depth: 4, state: .submergedDeep)
        #expect(feed.states.suffix(2) == [.unknown, .submergedDeep])
        #expect(feed.deriver.dive?.startDate == 200)
    }

    @Test("no silence at the surface")
    func noSilenceAtSurface() {
        var feed = SubmersionFeed()
        feed.event(0, .notSubmerged)
        #expect(feed.tick(at: .greatestFiniteMagnitude).isEmpty)
    }

    // MARK: Engine

    @Test("the derivation engine routes submersion frames to each device's deriver")
    func engine() {
        var engine = DerivationEngine()
        let device = DeviceID("watch-ultra-1")!
        let context = DerivationContext(device: device, receivedAt: 1, maximumDepth: 40)
        let entered = engine.receive(.submersionEvent(SubmersionEvent(date: 10, state: .submerged), sequence: 1), context: context)
        #expect(entered.map(\.topic) == ["gateway/watch-ultra-1/submersion/depth-state"])
        let deep = engine.receive(
            .submersionMeasurement(SubmersionMeasurement(date: 11, depth: 12, pressure: nil, surfacePressure: 101, submersionState: .submergedDeep), sequence: 1),
            context: context)
        #expect(payload(deep.first)["state"] as? String == "submergedDeep")
        #expect(engine.state(of: device)?.submersion.machine.state == .submergedDeep)
        let silent = engine.tick(now: 1 + 600) { DerivationContext(device: $0, receivedAt: 601) }
        #expect(silent.map(\.topic) == ["gateway/watch-ultra-1/submersion/depth-state", "gateway/watch-ultra-1/submersion/dive"])
    }

    @Test("ticks visit only devices with an open dive (or another timer)")
    func ticksVisitTimedDevices() {
        var engine = DerivationEngine()
        let diver = DeviceID("watch-ultra-1")!
        let dry = DeviceID("watch-ultra-2")!
        let diverContext = DerivationContext(device: diver, receivedAt: 1, maximumDepth: 40)
        _ = engine.receive(.submersionEvent(SubmersionEvent(date: 10, state: .notSubmerged), sequence: 1), context: DerivationContext(device: dry, receivedAt: 1, maximumDepth: 40))
        #expect(engine.tracks(dry))
        #expect(engine.timedDeviceCount == 0)

        _ = engine.receive(.submersionEvent(SubmersionEvent(date: 10, state: .submerged), sequence: 1), context: diverContext)
        #expect(engine.state(of: diver)?.submersion.dive != nil)
        #expect(engine.timedDeviceCount == 1)
        var visited: [DeviceID] = []
        let quiet = engine.tick(now: 2) { visited.append($0); return DerivationContext(device: $0, receivedAt: 2) }
        #expect(quiet.isEmpty)
        #expect(visited == [diver])

        // The silence ends the dive: the diver leaves the ticks.
        let silent = engine.tick(now: 1 + 600) { DerivationContext(device: $0, receivedAt: 601) }
        #expect(silent.map(\.topic).contains("gateway/watch-ultra-1/submersion/dive"))
        #expect(engine.timedDeviceCount == 0)

        // A restored open dive ticks again; forgetting the device ends that.
        var other = DerivationEngine()
        _ = other.receive(.submersionEvent(SubmersionEvent(date: 10, state: .submerged), sequence: 1), context: diverContext)
        engine.forget(diver)
        let restored = engine.restore(other.state(of: diver)!, of: diver)
        #expect(restored)
        #expect(engine.timedDeviceCount == 1)
        engine.forget(diver)
        #expect(engine.timedDeviceCount == 0)
    }

    @Test("the configuration reports bad values")
    func configurationProblem() {
        #expect(SubmersionConfiguration().configurationProblem == nil)
        var bad = SubmersionConfiguration()
        bad.waterDensity = 0
        #expect(bad.configurationProblem?.contains("waterDensity") == true)
        bad = SubmersionConfiguration()
        bad.hysteresis = -0.1
        #expect(bad.configurationProblem?.contains("hysteresis") == true)
        #expect(DerivationConfiguration().submersion == SubmersionConfiguration())
    }
}
