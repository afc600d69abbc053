import Foundation
import TelemetryCore
import TelemetrySimulation
import Testing

/// The SwingWatch rule generalised to any rate, on synthetic rates and on simulated rallies.
@Suite("Tennis stroke counter")
struct TennisStrokeCounterTests {
    /// Feeds a rally's frames and returns the strokes counted.
    static func count(_ rally: TennisRallyScenario, configuration: TennisConfiguration = TennisConfiguration()) -> [TennisStroke] {
        var counter = TennisStrokeCounter(configuration: configuration)
        var strokes: [TennisStroke] = []
        for frame in rally.frames {
            for sample in frame.samples {
                if let stroke = counter.process(sample, wrist: rally.wrist) { strokes.append(stroke) }
            }
        }
        return strokes
    }

    static let sequence: [TennisStrokeKind] = [
        .forehand, .forehand, .backhand, .forehand, .backhand, .backhand, .forehand, .backhand, .forehand, .forehand, .backhand, .forehand,
    ]

    @Test(
        "a rally yields exactly its stroke sequence, on either wrist, at 50 and 100 Hz",
        arguments: [(WristLocation.left, 50.0), (.right, 50), (.left, 100), (.right, 100)])
    func rally(wrist: WristLocation, rate: Double) {
        for seed in UInt64(1)...5 {
            let rally = TennisRallyScenario(seed: seed, wrist: wrist, sequence: Self.sequence, walkEvery: 4, sampleRate: rate, samplesPerFrame: Int(rate / 5))
            let strokes = Self.count(rally)
            #expect(strokes.map(\.kind) == rally.strokes.map(\.kind), "seed \(seed)")
            for (stroke, truth) in zip(strokes, rally.strokes) {
                #expect(stroke.timestamp >= truth.startTimestamp && stroke.timestamp <= truth.endTimestamp + 1, "seed \(seed): \(stroke) vs \(truth)")
            }
            let forehands = Self.sequence.filter { $0 == .forehand }.count
            #expect(strokes.last?.forehandCount == forehands)
            #expect(strokes.last?.backhandCount == Self.sequence.count - forehands)
        }
    }

    /// Apple's SwingWatch `MotionManager` rule, literally: a 50-sample buffer at 50 Hz.
    struct SwingWatchReference {
        var buffer: [Double] = []
        var recentDetection = false
        var forehands = 0
        var backhands = 0
        let wristIsLeft: Bool

        /// Returns the stroke this sample counted, if any.
        mutating func process(_ rate: Double) -> TennisStrokeKind? {
            buffer.append(rate)
            if buffer.count > 50 { buffer.removeFirst() }
            guard buffer.count == 50 else { return nil }
            let accumulated = buffer.reduce(0, +) * (1.0 / 50)
            let peak = accumulated > 0 ? buffer.max()! : buffer.min()!
            var counted: TennisStrokeKind?
            if accumulated < -1.95 && peak < -5.5 {
                counted = wristIsLeft ? .backhand : .forehand
            } else if accumulated > 1.95 && peak > 5.5 {
                counted = wristIsLeft ? .forehand : .backhand
            }
            if let kind = counted {
                if recentDetection {
                    counted = nil
                } else {
                    recentDetection = true
                    if kind == .forehand { forehands += 1 } else { backhands += 1 }
                }
            }
            let recent = buffer.suffix(25)
            if recentDetection && abs(recent.reduce(0, +) / 25) < 0.275 {
                recentDetection = false
                buffer.removeAll()
            }
            return counted
        }
    }

    @Test("at exactly 50 Hz the generalised rule counts exactly where SwingWatch does", arguments: [WristLocation.left, .right])
    func matchesSwingWatch(wrist: WristLocation) {
        for seed in UInt64(11)...14 {
            let rally = TennisRallyScenario(seed: seed, wrist: wrist, sequence: Self.sequence, walkEvery: 3)
            var reference = SwingWatchReference(wristIsLeft: wrist == .left)
            var counter = TennisStrokeCounter(configuration: TennisConfiguration())
            var expected: [(Int, TennisStrokeKind)] = []
            var actual: [(Int, TennisStrokeKind)] = []
            var index = 0
            for frame in rally.frames {
                for sample in frame.samples {
                    let rate = sample.rotationRate.dot(sample.gravity) / sample.gravity.norm
                    if let kind = reference.process(rate) { expected.append((index, kind)) }
                    if let stroke = counter.process(rate: rate, timestamp: 1_000 + Double(index) / 50, wrist: wrist) { actual.append((index, stroke.kind)) }
                    index += 1
                }
            }
            #expect(actual.map(\.0) == expected.map(\.0), "seed \(seed)")
            #expect(actual.map(\.1) == expected.map(\.1), "seed \(seed)")
            #expect(expected.count == Self.sequence.count)
        }
    }

    @Test("the window measures seconds, not samples: the same motion counts the same at 25, 50 and 100 Hz")
    func anyRate() {
        // A clockwise 2.6 rad swing over 0.4 s, (1 − cos) profile, every 4 s.
        func rate(_ time: Double) -> Double {
            let local = time.truncatingRemainder(dividingBy: 4) - 1
            guard local >= 0, local < 0.4 else { return 0 }
            return 2.6 / 0.4 * (1 - cos(2 * Double.pi * local / 0.4))
        }
        for sampleRate in [25.0, 50, 100] {
            var counter = TennisStrokeCounter(configuration: TennisConfiguration())
            var strokes: [TennisStroke] = []
            for index in 0..<Int(20 * sampleRate) {
                let time = Double(index) / sampleRate
                if let stroke = counter.process(rate: rate(time), timestamp: 100 + time, wrist: .left) { strokes.append(stroke) }
            }
            #expect(strokes.count == 5, "\(sampleRate) Hz")
            #expect(strokes.allSatisfy { $0.kind == .forehand && abs($0.accumulatedRotation - 2.6) < 0.7 }, "\(sampleRate) Hz: \(strokes)")
        }
    }

    @Test("rotation below the thresholds is never a stroke; a gap restarts the window")
    func belowThresholdAndGaps() {
        var counter = TennisStrokeCounter(configuration: TennisConfiguration())
        // 1.9 rad in 0.3 s (peak 12.7 rad/s): accumulated rotation too small.
        for index in 0..<500 {
            let time = Double(index) / 50
            let local = time.truncatingRemainder(dividingBy: 3)
            let rate = local < 0.3 ? 1.9 / 0.3 * (1 - cos(2 * Double.pi * local / 0.3)) : 0
            #expect(counter.process(rate: rate, timestamp: time, wrist: .right) == nil)
        }
        // 2.5 rad but split by a 0.5 s gap in the data: never integrated across it.
        var gapped = TennisStrokeCounter(configuration: TennisConfiguration())
        var strokes = 0
        for index in 0..<200 {
            let time = Double(index) / 50
            if time > 2.2 && time < 2.7 { continue }
            let rate = time > 2 && time < 2.9 ? 5.8 : 0.0
            if gapped.process(rate: rate, timestamp: time, wrist: .right) != nil { strokes += 1 }
        }
        #expect(strokes == 0)
    }
}

