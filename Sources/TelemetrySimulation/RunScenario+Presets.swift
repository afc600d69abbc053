extension RunScenario {
    /// An urban run of about 20–30 minutes: five or six flat segments (3.0–3.5 m/s) separated by
    /// stoplight pauses of 20–90 s, one segment (never the first) climbing 20–30 m at a slower
    /// pace, and a final 20–45 s pause before the workout ends. Barometer noise σ 0.1–0.3 m.
    ///
    /// Redeliveries: the second stoplight's pause arrives 1 s after its resume (out of order,
    /// still in time: the segment it closes is not published yet), the first stoplight's resume
    /// is sent again 3 s after the second's (late: its segment is published) and the third
    /// stoplight's pause is sent twice in a row (a duplicate).
    /// - Parameters:
    ///   - seed: decides durations, speeds, the hill, the noise and the jitter.
    ///   - deviceId: the device id (`config/devices.yml` lists `watch-run-1`).
    public static func urbanRun(seed: UInt64, deviceId: String = "watch-run-1") -> RunScenario {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: 0x00C1_7E))
        let segments = 5 + Int(random.next() % 2)
        let hillSegment = 1 + Int(random.next() % UInt64(segments - 1))
        var phases: [Phase] = []
        var stops: [Double] = []
        for index in 0..<segments {
            if index == hillSegment {
                let cruise = random.flatLeg(duration: 30...90)
                let climb = Leg(
                    duration: random.nextDouble(in: 120...200), climb: random.nextDouble(in: 20...30), speed: random.nextDouble(in: 2.3...2.7),
                    cadence: random.nextDouble(in: 2.65...2.8))
                phases.append(.run([cruise, climb, random.flatLeg(duration: 60...150)]))
            } else {
                phases.append(.run([random.flatLeg(duration: 60...150), random.flatLeg(duration: 60...150)]))
            }
            let stop = index < segments - 1 ? random.nextDouble(in: 20...90) : random.nextDouble(in: 20...45)
            stops.append(stop)
            phases.append(.pause(stop))
        }
        var scenario = RunScenario(name: "urban-run-\(seed)", deviceId: deviceId, seed: seed, phases: phases)
        scenario.altitudeNoise = random.nextDouble(in: 0.1...0.3)
        scenario.uptimeAtStart = random.nextDouble(in: 3_600...1_000_000).rounded()
        // Events: pause k = 2k, resume k = 2k + 1. The resume of stop 0 to the resume of stop 1 is
        // segment 1 + stop 1 long.
        let resumeGap = phases[2].duration + stops[1]
        scenario.redeliveries = [.delayed(event: 2, by: stops[1] + 1), .repeated(event: 1, after: resumeGap + 3), .repeated(event: 4, after: 0)]
        scenario.expectedLateEvents = 1
        scenario.expectedDuplicateEvents = 1
        return scenario
    }

    /// A trail run of about 20–45 minutes on rolling terrain: three or four segments separated
    /// by 30–120 s breaks, the workout ending while running. Segments alternate between hilly
    /// (climbs of 6–25 m at 0.1–0.2 m/s and descents, at least 25 m of climbing) and mostly
    /// downhill (a flat stretch, then descents around one climb of 3–5 m), so every hill flag is
    /// clear of the 10 m threshold. Barometer noise σ 0.1–0.3 m.
    ///
    /// Redeliveries: the first break's resume is sent twice in a row (a duplicate) and its pause
    /// again 10 s after the second break's resume (late: the segment after it is published).
    /// - Parameters:
    ///   - seed: decides the terrain, paces, breaks, noise and jitter.
    ///   - deviceId: the device id (`config/devices.yml` lists `watch-run-2`).
    public static func trailRun(seed: UInt64, deviceId: String = "watch-run-2") -> RunScenario {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: 0x7EA1))
        let segments = 3 + Int(random.next() % 2)
        var phases: [Phase] = []
        for index in 0..<segments {
            var legs: [Leg] = []
            if index % 2 == 0 {
                var climbed = 0.0
                while climbed < 25 || legs.count < 4 {
                    let climb = random.nextDouble(in: 6...25)
                    climbed += climb
                    legs.append(random.climbLeg(climb))
                    legs.append(random.descentLeg(-random.nextDouble(in: 5...25)))
                }
            } else {
                legs = [
                    random.flatLeg(duration: 120...240), random.descentLeg(-random.nextDouble(in: 10...30)), random.climbLeg(random.nextDouble(in: 3...5)),
                    random.descentLeg(-random.nextDouble(in: 8...20)),
                ]
            }
            phases.append(.run(legs))
            if index < segments - 1 {
                phases.append(.pause(random.nextDouble(in: 30...120)))
            }
        }
        var scenario = RunScenario(name: "trail-run-\(seed)", deviceId: deviceId, seed: seed, phases: phases)
        scenario.activityType = "hiking"
        scenario.altitudeNoise = random.nextDouble(in: 0.1...0.3)
        scenario.uptimeAtStart = random.nextDouble(in: 3_600...1_000_000).rounded()
        scenario.baseAltitude = random.nextDouble(in: 300...1_500)
        // Events: pause k = 2k, resume k = 2k + 1; from the first pause to the second resume.
        let secondResume = phases[1...3].reduce(0) { $0 + $1.duration }
        scenario.redeliveries = [.repeated(event: 1, after: 0), .repeated(event: 0, after: secondResume + 10)]
        scenario.expectedLateEvents = 1
        scenario.expectedDuplicateEvents = 1
        return scenario
    }
}

extension SplitMix64 {
    /// A flat leg at an urban pace.
    fileprivate mutating func flatLeg(duration: ClosedRange<Double>) -> RunScenario.Leg {
        RunScenario.Leg(duration: nextDouble(in: duration), speed: nextDouble(in: 3.0...3.5), cadence: nextDouble(in: 2.8...3.0))
    }

    /// An uphill trail leg of `climb` m at 0.1–0.2 m/s of ascent.
    fileprivate mutating func climbLeg(_ climb: Double) -> RunScenario.Leg {
        RunScenario.Leg(duration: climb / nextDouble(in: 0.1...0.2), climb: climb, speed: nextDouble(in: 1.8...2.4), cadence: nextDouble(in: 2.6...2.8))
    }

    /// A downhill trail leg of `climb` (negative) m at 0.1–0.25 m/s of descent.
    fileprivate mutating func descentLeg(_ climb: Double) -> RunScenario.Leg {
        RunScenario.Leg(duration: -climb / nextDouble(in: 0.1...0.25), climb: climb, speed: nextDouble(in: 2.8...3.4), cadence: nextDouble(in: 2.85...3.0))
    }
}
