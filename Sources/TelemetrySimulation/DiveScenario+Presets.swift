import TelemetryCore

extension DiveScenario {
    /// Every preset, each with its own device id.
    public static var presets: [DiveScenario] {
        [snorkel(), approachingMaxDepth(), pastMaxDepth(), sensorDepthError(), deepDive(), fastAscent(), boundaryNoise()]
    }

    /// A snorkel: half a minute just under the surface, never 1 m deep (shallow entitlement).
    /// States: notSubmerged → submergedShallow → notSubmerged.
    public static func snorkel(deviceId: String = "dive-snorkel") -> DiveScenario {
        DiveScenario(
            name: "snorkel", deviceId: deviceId, maximumDepth: 6,
            legs: [Leg(to: 0.6, over: 4), Leg(to: 0.8, over: 6), Leg(to: 0.7, over: 20), Leg(to: 0, over: 5)],
            seed: 1, nominalDepthStates: [.notSubmerged, .submergedShallow, .notSubmerged], expectedAscentWarnings: 0,
            expectsSafetyStopHint: false)
    }

    /// A dive to 5.8 m with the shallow entitlement (6 m): approaching the maximum depth, never
    /// past it. Descent 12 m/min, 20 s at the bottom, ascent 6 m/min.
    public static func approachingMaxDepth(deviceId: String = "dive-approach") -> DiveScenario {
        DiveScenario(
            name: "approaching-5.8m", deviceId: deviceId, maximumDepth: 6,
            legs: [.move(to: 5.8, from: 0, metresPerMinute: 12), Leg(to: 5.8, over: 20), .move(to: 0, from: 5.8, metresPerMinute: 6)],
            seed: 2,
            nominalDepthStates: [
                .notSubmerged, .submergedShallow, .submergedDeep, .approachingMaxDepth, .submergedDeep, .submergedShallow, .notSubmerged,
            ], expectedAscentWarnings: 0, expectsSafetyStopHint: false)
    }

    /// A dive to 6.3 m with the shallow entitlement: past the maximum depth, within the sensor's
    /// range. Measurements alternate between depth and pressure only.
    public static func pastMaxDepth(deviceId: String = "dive-past") -> DiveScenario {
        DiveScenario(
            name: "past-6.3m", deviceId: deviceId, maximumDepth: 6,
            legs: [.move(to: 6.3, from: 0, metresPerMinute: 12), Leg(to: 6.3, over: 20), .move(to: 0, from: 6.3, metresPerMinute: 6)],
            reporting: .alternating, seed: 3,
            nominalDepthStates: [
                .notSubmerged, .submergedShallow, .submergedDeep, .approachingMaxDepth, .pastMaxDepth, .approachingMaxDepth, .submergedDeep,
                .submergedShallow, .notSubmerged,
            ], expectedAscentWarnings: 0, expectsSafetyStopHint: false)
    }

    /// A dive to 7 m with the shallow entitlement: beyond 6.6 m the device reports
    /// `sensorDepthError` with neither depth nor pressure.
    public static func sensorDepthError(deviceId: String = "dive-error") -> DiveScenario {
        DiveScenario(
            name: "sensor-error-7m", deviceId: deviceId, maximumDepth: 6,
            legs: [.move(to: 7, from: 0, metresPerMinute: 12), Leg(to: 7, over: 20), .move(to: 0, from: 7, metresPerMinute: 6)],
            seed: 4,
            nominalDepthStates: [
                .notSubmerged, .submergedShallow, .submergedDeep, .approachingMaxDepth, .pastMaxDepth, .sensorDepthError, .pastMaxDepth,
                .approachingMaxDepth, .submergedDeep, .submergedShallow, .notSubmerged,
            ], expectedAscentWarnings: 0, expectsSafetyStopHint: false)
    }

    /// A 30 m dive with the full entitlement (40 m): descent 15 m/min, 60 s at the bottom,
    /// ascent 8 m/min to 5 m, a 200 s safety stop, then 5 m/min to the surface. Pressure only.
    public static func deepDive(deviceId: String = "dive-30m") -> DiveScenario {
        DiveScenario(
            name: "deep-30m", deviceId: deviceId, maximumDepth: 40,
            legs: [
                .move(to: 30, from: 0, metresPerMinute: 15), Leg(to: 30, over: 60), .move(to: 5, from: 30, metresPerMinute: 8),
                Leg(to: 5, over: 200), .move(to: 0, from: 5, metresPerMinute: 5),
            ],
            reporting: .pressureOnly, seed: 5,
            nominalDepthStates: [.notSubmerged, .submergedShallow, .submergedDeep, .submergedShallow, .notSubmerged],
            expectedAscentWarnings: 0, expectsSafetyStopHint: false)
    }

    /// A fast ascent with the full entitlement: down to 20 m, 30 s at the bottom, then straight
    /// up at 18 m/min without a safety stop — one ascent-rate warning and a safety-stop hint.
    public static func fastAscent(deviceId: String = "dive-fast-ascent") -> DiveScenario {
        DiveScenario(
            name: "fast-ascent", deviceId: deviceId, maximumDepth: 40,
            legs: [.move(to: 20, from: 0, metresPerMinute: 15), Leg(to: 20, over: 30), .move(to: 0, from: 20, metresPerMinute: 18)],
            seed: 6, nominalDepthStates: [.notSubmerged, .submergedShallow, .submergedDeep, .submergedShallow, .notSubmerged],
            expectedAscentWarnings: 1, expectsSafetyStopHint: true)
    }

    /// Hovering at 1 m for a minute with ±4 cm of noise (shallow entitlement): without hysteresis
    /// the state would flap between shallow and deep; with the default 5 cm it changes once.
    public static func boundaryNoise(deviceId: String = "dive-boundary") -> DiveScenario {
        DiveScenario(
            name: "boundary-noise-1m", deviceId: deviceId, maximumDepth: 6,
            legs: [Leg(to: 1, over: 10), Leg(to: 1, over: 60), Leg(to: 0, over: 10)], noise: 0.04, seed: 7,
            nominalDepthStates: [.notSubmerged, .submergedShallow, .submergedDeep, .submergedShallow, .notSubmerged],
            expectedAscentWarnings: 0, expectsSafetyStopHint: false)
    }

    /// A random dive for property tests: maximum depth 6 or 40 m, one or two levels between
    /// 0.3 m and 1.25·M, descent 5–20 m/min, ascent 3–9 m/min, noise up to 5 cm, any depth
    /// reporting. States are checked against ``expectedDepthStates(hysteresis:waterDensity:)``;
    /// the ascent and safety-stop outcomes are not stated.
    /// - Parameters:
    ///   - seed: decides everything.
    ///   - deviceId: the device id; defaults to `dive-random-<seed>`.
    public static func random(seed: UInt64, deviceId: String? = nil) -> DiveScenario {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: 0xD1BE))
        let maximumDepth: Double = random.next() % 2 == 0 ? 6 : 40
        let first = random.nextDouble(in: 0.3...(1.25 * maximumDepth))
        var legs: [Leg] = [.move(to: first, from: 0, metresPerMinute: random.nextDouble(in: 5...20))]
        legs.append(Leg(to: first, over: random.nextDouble(in: 0...30)))
        var level = first
        if random.next() % 2 == 0 {
            let second = random.nextDouble(in: 0.3...(1.25 * maximumDepth))
            legs.append(.move(to: second, from: first, metresPerMinute: random.nextDouble(in: 3...12)))
            legs.append(Leg(to: second, over: random.nextDouble(in: 0...30)))
            level = second
        }
        legs.append(.move(to: 0, from: level, metresPerMinute: random.nextDouble(in: 3...9)))
        let reporting = DepthReporting.allCases[Int(random.next() % UInt64(DepthReporting.allCases.count))]
        return DiveScenario(
            name: "random-\(seed)", deviceId: deviceId ?? "dive-random-\(seed)", maximumDepth: maximumDepth, legs: legs,
            noise: random.nextDouble(in: 0...0.05), reporting: reporting, seed: seed)
    }
}
