import Testing

@testable import TelemetryCore

/// A measurement with a depth and the device's own state derived loosely (the machine uses the depth).
private func measurement(_ date: Double, depth: Double?, pressure: Double? = nil, surface: Double = 101.3, state: DepthState = .submergedDeep)
    -> SubmersionMeasurement
{
    SubmersionMeasurement(date: date, depth: depth, pressure: pressure, surfacePressure: surface, submersionState: state)
}

/// A machine already under water in `state` (entered by an event, moved there by one measurement).
private func machine(in state: DepthState, maximumDepth: Double, hysteresis: Double = 0.05) -> DepthStateMachine {
    var machine = DepthStateMachine(configuration: .init(hysteresis: hysteresis))
    _ = machine.receive(SubmersionEvent(date: 0, state: .submerged))
    let bands = DepthBands(maximumDepth: maximumDepth)
    let depth: Double =
        switch state {
        case .submergedShallow: 0.5
        case .submergedDeep: (1 + bands.approachingFrom) / 2
        case .approachingMaxDepth: (bands.approachingFrom + bands.pastBeyond) / 2
        case .pastMaxDepth: (bands.pastBeyond + bands.sensorErrorBeyond) / 2
        default: 1.5 * maximumDepth
        }
    _ = machine.receive(measurement(1, depth: depth), maximumDepth: maximumDepth)
    precondition(machine.state == state)
    return machine
}

@Suite("Depth state machine")
struct SubmersionDepthStateMachineTests {
    // MARK: Bands

    /// (M, depth, state by the contract without hysteresis)
    static let bandTable: [(Double, Double, DepthState)] = [
        (6, 0, .submergedShallow), (6, 0.99, .submergedShallow), (6, 1, .submergedDeep), (6, 5.39, .submergedDeep),
        (6, 5.4, .approachingMaxDepth), (6, 6, .approachingMaxDepth), (6, 6.01, .pastMaxDepth), (6, 6.6, .pastMaxDepth),
        (6, 6.61, .sensorDepthError), (6, 20, .sensorDepthError),
        (40, 0.5, .submergedShallow), (40, 1, .submergedDeep), (40, 35.99, .submergedDeep), (40, 36, .approachingMaxDepth),
        (40, 40, .approachingMaxDepth), (40, 40.01, .pastMaxDepth), (40, 44, .pastMaxDepth), (40, 44.01, .sensorDepthError),
    ]

    @Test("bands follow the contract for both maximum depths", arguments: bandTable)
    func bands(maximumDepth: Double, depth: Double, expected: DepthState) {
        #expect(DepthBands(maximumDepth: maximumDepth).state(forDepth: depth) == expected)
    }

    @Test("thresholds for 6 m and 40 m")
    func thresholds() {
        let shallow = DepthBands(maximumDepth: 6)
        #expect(shallow.approachingFrom == 0.9 * 6)
        #expect(shallow.sensorErrorBeyond == 1.1 * 6)
        let full = DepthBands(maximumDepth: 40)
        #expect(full.approachingFrom == 36)
        #expect(full.sensorErrorBeyond == 1.1 * 40)
    }

    // MARK: Transition tables

    /// A descent to beyond the sensor's range and back, for M = 6 and M = 40 (in units of M
    /// where it matters), with the state after each measurement.
    static func diveTable(_ m: Double) -> [(Double, DepthState)] {
        [
            (0.4, .submergedShallow), (0.99, .submergedShallow), (1.0, .submergedDeep), (0.5 * m, .submergedDeep),
            (0.9 * m, .approachingMaxDepth), (m, .approachingMaxDepth), (m + 0.01, .pastMaxDepth), (1.1 * m, .pastMaxDepth),
            (1.1 * m + 0.01, .sensorDepthError), (1.2 * m, .sensorDepthError),
            // back up: each boundary needs the depth 5 cm beyond it
            (1.1 * m - 0.04, .sensorDepthError), (1.1 * m - 0.05, .pastMaxDepth), (m - 0.04, .pastMaxDepth), (m - 0.05, .approachingMaxDepth),
            (0.9 * m - 0.05, .approachingMaxDepth), (0.9 * m - 0.06, .submergedDeep), (0.95, .submergedDeep), (0.94, .submergedShallow),
            (0.2, .submergedShallow),
        ]
    }

    @Test("a full descent and ascent moves through every band, both maximum depths", arguments: [6.0, 40.0])
    func transitionTable(maximumDepth: Double) {
        var machine = DepthStateMachine()
        #expect(machine.state == .unknown)
        guard case .applied(let entry?, nil) = machine.receive(SubmersionEvent(date: 0, state: .submerged)) else {
            Issue.record("the submerged event must enter the water")
            return
        }
        #expect(entry == DepthTransition(previous: .unknown, state: .submergedShallow, date: 0, cause: .event))
        #expect(entry.startsDive)
        var previous = DepthState.submergedShallow
        for (index, (depth, expected)) in Self.diveTable(maximumDepth).enumerated() {
            let date = Double(index + 1)
            let action = machine.receive(measurement(date, depth: depth), maximumDepth: maximumDepth)
            let transition = expected == previous ? nil : DepthTransition(previous: previous, state: expected, date: date, depth: depth, cause: .measurement)
            #expect(action == .applied(transition: transition, depth: depth), "at \(depth) m (M = \(maximumDepth))")
            previous = expected
        }
        guard case .applied(let exit?, _) = machine.receive(SubmersionEvent(date: 100, state: .notSubmerged)) else {
            Issue.record("the notSubmerged event must leave the water")
            return
        }
        #expect(exit == DepthTransition(previous: .submergedShallow, state: .notSubmerged, date: 100, cause: .event))
        #expect(exit.endsDive)
    }

    // MARK: Hysteresis at every boundary

    /// (boundary, M): the boundaries where deep, approaching, past and sensor error start.
    static let boundaries: [(String, Double)] = [("deep", 6), ("approaching", 6), ("past", 6), ("sensorError", 6), ("deep", 40), ("approaching", 40), ("past", 40), ("sensorError", 40)]

    @Test("rising across a boundary needs the hysteresis; descending does not; noise within it does not flap", arguments: boundaries)
    func hysteresis(boundary name: String, maximumDepth: Double) {
        let bands = DepthBands(maximumDepth: maximumDepth)
        let h = 0.05
        let (threshold, shallower, deeper, deeperIncludesThreshold): (Double, DepthState, DepthState, Bool) =
            switch name {
            case "deep": (bands.deepFrom, .submergedShallow, .submergedDeep, true)
            case "approaching": (bands.approachingFrom, .submergedDeep, .approachingMaxDepth, true)
            case "past": (bands.pastBeyond, .approachingMaxDepth, .pastMaxDepth, false)
            default: (bands.sensorErrorBeyond, .pastMaxDepth, .sensorDepthError, false)
            }
        // Descending: the contract's threshold exactly.
        var down = machine(in: shallower, maximumDepth: maximumDepth)
        let atThreshold = down.receive(measurement(10, depth: threshold), maximumDepth: maximumDepth)
        if deeperIncludesThreshold {
            #expect(down.state == deeper, "\(name): at the threshold the deeper band applies")
        } else {
            #expect(atThreshold == .applied(transition: nil, depth: threshold), "\(name): at the threshold the shallower band applies")
            _ = down.receive(measurement(11, depth: threshold + 0.001), maximumDepth: maximumDepth)
            #expect(down.state == deeper)
        }

        // Rising: noise just above threshold − h keeps the deeper state.
        var up = machine(in: deeper, maximumDepth: maximumDepth)
        var date = 10.0
        for depth in [threshold - 0.01, threshold + 0.02, threshold - h + 0.001, threshold - 0.03, threshold - h + 0.0001] {
            date += 1
            _ = up.receive(measurement(date, depth: depth), maximumDepth: maximumDepth)
            #expect(up.state == deeper, "\(name) M=\(maximumDepth): \(depth) m is within the hysteresis")
        }
        // Exactly threshold − h: the boundary's own inclusivity, shifted.
        date += 1
        _ = up.receive(measurement(date, depth: threshold - h), maximumDepth: maximumDepth)
        #expect(up.state == (deeperIncludesThreshold ? deeper : shallower), "\(name): at threshold − h")
        date += 1
        let action = up.receive(measurement(date, depth: threshold - h - 0.001), maximumDepth: maximumDepth)
        #expect(up.state == shallower, "\(name): beyond the hysteresis the shallower band applies")
        if deeperIncludesThreshold {
            #expect(action == .applied(transition: DepthTransition(previous: deeper, state: shallower, date: date, depth: threshold - h - 0.001, cause: .measurement), depth: threshold - h - 0.001))
        }
        // And going back down needs only the threshold again.
        date += 1
        _ = up.receive(measurement(date, depth: deeperIncludesThreshold ? threshold : threshold + 0.001), maximumDepth: maximumDepth)
        #expect(up.state == deeper)
    }

    @Test("the hysteresis is configurable; zero flaps with the noise")
    func configurableHysteresis() {
        let noise = [1.0, 0.98, 1.01, 0.97, 1.02, 0.96]
        for (hysteresis, expectedChanges) in [(0.0, 6), (0.05, 1), (0.02, 4)] {
            var machine = DepthStateMachine(configuration: .init(hysteresis: hysteresis))
            _ = machine.receive(SubmersionEvent(date: 0, state: .submerged))
            var changes = 0
            for (index, depth) in noise.enumerated() {
                if case .applied(_?, _) = machine.receive(measurement(Double(index + 1), depth: depth), maximumDepth: 6) { changes += 1 }
            }
            #expect(changes == expectedChanges, "hysteresis \(hysteresis)")
        }
    }

    @Test("a rise across several bands at once stops at the lowered threshold")
    func multiBandRise() {
        var machine = machine(in: .sensorDepthError, maximumDepth: 6)
        _ = machine.receive(measurement(10, depth: 2), maximumDepth: 6)
        #expect(machine.state == .submergedDeep)
        _ = machine.receive(measurement(11, depth: 7), maximumDepth: 6)
        #expect(machine.state == .sensorDepthError)
        _ = machine.receive(measurement(12, depth: 0.3), maximumDepth: 6)
        #expect(machine.state == .submergedShallow)
    }

    // MARK: Pressure

    @Test("depth from pressure matches hand-computed values")
    func pressureDepth() {
        // (121.40 − 101.30) kPa = 20 100 Pa; ρg = 1025 · 9.80665 = 10 051.816 Pa/m → 1.99964 m.
        #expect(abs(WaterDepth.depth(pressure: 121.40, surfacePressure: 101.30) - 1.999_638_6) < 1e-6)
        // Fresh water: 997 · 9.80665 = 9 777.23 Pa/m → 2.05580 m.
        #expect(abs(WaterDepth.depth(pressure: 121.40, surfacePressure: 101.30, density: 997) - 2.055_797_0) < 1e-6)
        // 50 kPa of sea water ≈ 4.9742 m.
        #expect(abs(WaterDepth.depth(pressure: 151.0, surfacePressure: 101.0) - 4.974_225_4) < 1e-6)
        #expect(WaterDepth.depth(pressure: 101.3, surfacePressure: 101.3) == 0)
        #expect(WaterDepth.depth(pressure: 101.2, surfacePressure: 101.3) < 0)
    }

    @Test("a measurement without depth uses its pressure with the configured density")
    func pressureOnlyMeasurement() {
        var sea = machine(in: .submergedShallow, maximumDepth: 6)
        // 5.4 m of sea water (0.9 · 6, where approaching starts) is 54.27981 kPa over the surface.
        let action = sea.receive(measurement(10, depth: nil, pressure: 155.5797, state: .submergedDeep), maximumDepth: 6)
        guard case .applied(_, let depth?) = action else {
            Issue.record("expected a depth from pressure, got \(action)")
            return
        }
        #expect(abs(depth - 5.4) < 1e-4)
        #expect(sea.state == .submergedDeep, "5.39999 m is still deep")
        _ = sea.receive(measurement(11, depth: nil, pressure: 155.5810, state: .submergedDeep), maximumDepth: 6)
        #expect(sea.state == .approachingMaxDepth)

        var fresh = DepthStateMachine(configuration: .init(waterDensity: WaterDepth.freshWaterDensity))
        _ = fresh.receive(SubmersionEvent(date: 0, state: .submerged))
        // 52.0 kPa: 52 000 / (997 · 9.80665) = 5.3185 m of fresh water → deep.
        _ = fresh.receive(measurement(1, depth: nil, pressure: 153.3, surface: 101.3), maximumDepth: 6)
        #expect(fresh.state == .submergedDeep)
        // 53.0 kPa: 5.4207 m of fresh water → approaching (sea water would give 5.2727 m → deep).
        _ = fresh.receive(measurement(2, depth: nil, pressure: 154.3, surface: 101.3), maximumDepth: 6)
        #expect(fresh.state == .approachingMaxDepth)
    }

    @Test("a measurement's depth wins over its pressure")
    func depthWinsOverPressure() {
        var machine = machine(in: .submergedShallow, maximumDepth: 6)
        let action = machine.receive(measurement(10, depth: 0.5, pressure: 200), maximumDepth: 6)
        #expect(action == .applied(transition: nil, depth: 0.5))
    }

    // MARK: The measurement's own state

    @Test("without depth or pressure, a submerged measurement state is adopted (sensor error)")
    func adoptsOwnStateWithoutDepth() {
        var machine = machine(in: .pastMaxDepth, maximumDepth: 6)
        let action = machine.receive(measurement(10, depth: nil, state: .sensorDepthError), maximumDepth: 6)
        #expect(action == .applied(transition: DepthTransition(previous: .pastMaxDepth, state: .sensorDepthError, date: 10, cause: .measurement), depth: nil))
        // An unknown state without depth carries nothing.
        #expect(machine.receive(measurement(11, depth: nil, state: .unknown), maximumDepth: 6) == .ignored(.unknownState))
        #expect(machine.state == .sensorDepthError)
    }

    @Test("a measurement contradicting the events is ignored: events drive entry and exit")
    func contradictions() {
        var under = machine(in: .submergedDeep, maximumDepth: 6)
        #expect(under.receive(measurement(10, depth: nil, state: .notSubmerged), maximumDepth: 6) == .ignored(.contradictsEvents))
        #expect(under.state == .submergedDeep)

        var dry = DepthStateMachine()
        _ = dry.receive(SubmersionEvent(date: 0, state: .notSubmerged))
        #expect(dry.receive(measurement(1, depth: 2, state: .submergedDeep), maximumDepth: 6) == .ignored(.contradictsEvents))
        #expect(dry.receive(measurement(2, depth: nil, state: .notSubmerged), maximumDepth: 6) == .applied(transition: nil, depth: nil))
        #expect(dry.state == .notSubmerged)
    }

    @Test("before any event the measurement's own state is used, so a restarted gateway picks up a dive")
    func bootstrapFromMeasurement() {
        var machine = DepthStateMachine()
        let action = machine.receive(measurement(5, depth: 12, state: .submergedDeep), maximumDepth: 40)
        #expect(action == .applied(transition: DepthTransition(previous: .unknown, state: .submergedDeep, date: 5, depth: 12, cause: .measurement), depth: 12))
        var dry = DepthStateMachine()
        #expect(dry.receive(measurement(5, depth: nil, state: .notSubmerged), maximumDepth: 40).isTransition)
        #expect(dry.state == .notSubmerged)
        var blank = DepthStateMachine()
        #expect(blank.receive(measurement(5, depth: nil, state: .unknown), maximumDepth: 40) == .ignored(.unknownState))
        #expect(blank.state == .unknown)
    }

    @Test("events: submerged while submerged keeps the band; unknown is ignored; the first event publishes the known state")
    func events() {
        var machine = DepthStateMachine()
        #expect(machine.receive(SubmersionEvent(date: 0, state: .unknown)) == .ignored(.unknownState))
        #expect(machine.state == .unknown)
        #expect(machine.receive(SubmersionEvent(date: 1, state: .notSubmerged)).isTransition)
        #expect(machine.receive(SubmersionEvent(date: 2, state: .notSubmerged)) == .applied(transition: nil, depth: nil))
        #expect(machine.receive(SubmersionEvent(date: 3, state: .submerged)).isTransition)
        _ = machine.receive(measurement(4, depth: 3), maximumDepth: 6)
        #expect(machine.receive(SubmersionEvent(date: 5, state: .submerged)) == .applied(transition: nil, depth: nil))
        #expect(machine.state == .submergedDeep)
    }

    // MARK: Order

    @Test("out-of-order and duplicate inputs are dropped without touching the state")
    func outOfOrderAndDuplicates() {
        var machine = machine(in: .submergedDeep, maximumDepth: 6)  // last measurement at 1
        _ = machine.receive(measurement(10, depth: 3), maximumDepth: 6)
        #expect(machine.receive(measurement(10, depth: 0.2), maximumDepth: 6) == .duplicate)
        #expect(machine.receive(measurement(9.5, depth: 0.2), maximumDepth: 6) == .stale)
        #expect(machine.state == .submergedDeep)
        #expect(machine.lastMeasurementDate == 10)
        #expect(machine.receive(SubmersionEvent(date: 0, state: .submerged)) == .duplicate)
        #expect(machine.receive(SubmersionEvent(date: -1, state: .notSubmerged)) == .stale)
        #expect(machine.state == .submergedDeep)
        // An event may be older than the last measurement (another stream); a measurement older than the last event may not.
        #expect(machine.receive(SubmersionEvent(date: 9, state: .notSubmerged)).isTransition)
        #expect(machine.receive(measurement(8.5, depth: nil, state: .notSubmerged), maximumDepth: 6) == .stale)
        #expect(machine.receive(measurement(11, depth: nil, state: .notSubmerged), maximumDepth: 6) == .applied(transition: nil, depth: nil))
    }

    @Test("silence turns a submerged state unknown, dated at the last input; at the surface it does nothing")
    func silence() {
        var machine = machine(in: .submergedDeep, maximumDepth: 6)
        _ = machine.receive(measurement(42, depth: 3), maximumDepth: 6)
        #expect(machine.silence() == DepthTransition(previous: .submergedDeep, state: .unknown, date: 42, cause: .silence))
        #expect(machine.state == .unknown)
        #expect(machine.silence() == nil)
        var dry = DepthStateMachine()
        _ = dry.receive(SubmersionEvent(date: 0, state: .notSubmerged))
        #expect(dry.silence() == nil)
    }
}

extension DepthStateMachine.Action {
    /// Whether the action changed the state.
    var isTransition: Bool {
        if case .applied(_?, _) = self { return true }
        return false
    }
}
