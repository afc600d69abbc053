import Foundation
import Testing
import TelemetrySimulation

@testable import TelemetryCore

/// The tremor analyzer on synthetic 50 Hz signals of known displacement and frequency.
@Suite("Tremor analyzer")
struct TremorAnalyzerTests {
    static let analyzer = TremorAnalyzer()
    static let start = TremorSignals.start
    static let flat = Vector3(x: 0, y: 0, z: -1)

    private func analyze(_ samples: [RecordedAccelerometerSample], seconds: Double = 60) -> TremorResult {
        Self.analyzer.analyze(samples: samples, from: Self.start, to: Self.start + seconds)
    }

    // MARK: Classes

    /// (class, displacement well inside its band, cm peak to peak).
    static let gradedSignals: [(TremorSeverity, Double)] = [(.slight, 0.5), (.mild, 2), (.moderate, 6), (.strong, 14)]
    /// Along x (across gravity for a flat watch), along gravity, and diagonal.
    static let directions = [Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 0, z: 1), Vector3(x: 1, y: -1, z: 0.5)]

    @Test("sinusoids of each class, at 3.5–6.5 Hz and along any axis, are graded in their class in every window", arguments: gradedSignals, [3.5, 4.5, 5.5, 6.5])
    func classes(signal: (severity: TremorSeverity, peakToPeak: Double), frequency: Double) {
        let (severity, peakToPeak) = signal
        for (index, direction) in Self.directions.enumerated() {
            let tremor = TremorSignals.Tremor(peakToPeak: peakToPeak, frequency: frequency, direction: direction, phase: Double(index))
            let result = analyze(TremorSignals.samples(gravity: Self.flat, tremor: tremor, noise: 0.005, seed: UInt64(index)))
            #expect(result.windowCount == 30)
            #expect(result.fraction(severity) == 1, "\(severity) \(frequency) Hz along \(direction): \(result.windowCounts)")
            let displacement = result.displacement ?? 0
            #expect(abs(displacement - peakToPeak) <= 0.05 * peakToPeak, "\(displacement) cm vs \(peakToPeak) cm")
            #expect(abs((result.dominantFrequency ?? 0) - frequency) <= 0.05)
        }
    }

    @Test(
        "class boundaries follow MDS-UPDRS: < 1 cm slight, 1–3 mild, 3–10 moderate, ≥ 10 strong",
        arguments: [(0.9, TremorSeverity.slight), (1.15, .mild), (2.8, .mild), (3.3, .moderate), (9.2, .moderate), (11, .strong), (0.08, .slight)])
    func boundaries(peakToPeak: Double, expected: TremorSeverity) {
        let tremor = TremorSignals.Tremor(peakToPeak: peakToPeak, frequency: 4.2, direction: Vector3(x: 0.3, y: 1, z: 0))
        let result = analyze(TremorSignals.samples(seconds: 20, tremor: tremor, noise: 0.005), seconds: 20)
        #expect(result.fraction(expected) == 1, "\(peakToPeak) cm: \(result.windowCounts)")
        #expect(TremorSeverity.grade(peakToPeak: peakToPeak) == expected)
    }

    @Test("the dominant frequency of a clean sinusoid is within 0.2 Hz of the truth", arguments: stride(from: 3.5, through: 6.5, by: 0.13).map { $0 })
    func dominantFrequency(frequency: Double) {
        let tremor = TremorSignals.Tremor(peakToPeak: 1.6, frequency: frequency, direction: Vector3(x: 0.5, y: 0.2, z: 1), phase: frequency)
        let result = analyze(TremorSignals.samples(tremor: tremor, noise: 0.005, seed: UInt64(frequency * 100)))
        let measured = result.dominantFrequency ?? 0
        #expect(abs(measured - frequency) <= 0.2, "\(measured) Hz vs \(frequency) Hz")
        #expect(abs(measured - frequency) <= 0.03, "the 0.02 Hz grid should land next to it: \(measured) Hz vs \(frequency) Hz")
    }

    @Test("tremor across gravity: the acceleration vector sees it, the magnitude |a| would not")
    func vectorNotMagnitude() {
        let tremor = TremorSignals.Tremor(peakToPeak: 0.5, frequency: 3.5, direction: Vector3(x: 1, y: 0, z: 0))
        let samples = TremorSignals.samples(gravity: Self.flat, tremor: tremor)
        #expect(analyze(samples).slight == 1)
        // The magnitude keeps only 1 + a⊥²/2: a ripple of A²/4 at twice the frequency (7 Hz).
        let magnitudes = samples.map { RecordedAccelerometerSample(timestamp: $0.timestamp, startDate: $0.startDate, acceleration: Vector3(x: 0, y: 0, z: -$0.acceleration.norm)) }
        let fromMagnitude = analyze(magnitudes)
        #expect(fromMagnitude.slight == 0, "|a| shows no tremor at 3.5 Hz: \(fromMagnitude.windowCounts)")
    }

    // MARK: None

    @Test("sensor noise of 0.005 g at rest is none, never tremor", arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func noiseIsNone(seed: UInt64) {
        let result = analyze(TremorSignals.samples(noise: 0.005, seed: seed))
        #expect(result.none == 1, "\(result.windowCounts)")
        #expect(result.dominantFrequency == nil && result.displacement == nil)
    }

    @Test("a perfectly still watch, a 9 Hz physiological tremor and broadband fidgeting are none")
    func notTremor() {
        #expect(analyze(TremorSignals.samples()).none == 1)
        let physiological = TremorSignals.Tremor(peakToPeak: 0.006, frequency: 9, direction: Vector3(x: 1, y: 1, z: 0))
        #expect(analyze(TremorSignals.samples(tremor: physiological, noise: 0.005)).none == 1)
        // White noise of 0.05 g: its apparent band peak is ≈ 0.1–0.3 cm, but nothing stands out.
        let fidgeting = analyze(TremorSignals.samples(noise: 0.05, seed: 9))
        #expect(fidgeting.none >= 0.9, "\(fidgeting.windowCounts)")
    }

    @Test("below the minimum displacement is none")
    func belowMinimum() {
        let tremor = TremorSignals.Tremor(peakToPeak: 0.03, frequency: 5, direction: Vector3(x: 0, y: 1, z: 0))
        #expect(analyze(TremorSignals.samples(seconds: 20, tremor: tremor), seconds: 20).none == 1)
    }

    // MARK: Unknown

    @Test("missing data: a 10 s gap makes its 5 windows unknown; thinning below 80 % makes all unknown")
    func gaps() {
        let tremor = TremorSignals.Tremor(peakToPeak: 2, frequency: 5)
        let gap = analyze(TremorSignals.samples(tremor: tremor, noise: 0.005, drop: { $0 >= 10 && $0 < 20 }))
        #expect(gap.windowCounts == [5, 0, 0, 25, 0, 0])
        #expect(gap.missingDataWindows == 5 && gap.voluntaryWindows == 0)
        #expect(abs(gap.unknown - 5.0 / 30) <= 1.0 / 65_536)

        let halfRate = analyze(TremorSignals.samples(tremor: tremor, drop: { Int(($0 * 50).rounded(.down)) % 2 == 1 }))
        #expect(halfRate.unknown == 1 && halfRate.missingDataWindows == 30)

        // 0.3 s missing in every 2 s window (85 %) is still judged; 0.5 s (75 %) is not.
        let shortGaps = analyze(TremorSignals.samples(tremor: tremor, drop: { $0.truncatingRemainder(dividingBy: 2) >= 0.8 && $0.truncatingRemainder(dividingBy: 2) < 1.1 }))
        #expect(shortGaps.mild == 1, "\(shortGaps.windowCounts)")
        let longGaps = analyze(TremorSignals.samples(tremor: tremor, drop: { $0.truncatingRemainder(dividingBy: 2) >= 0.8 && $0.truncatingRemainder(dividingBy: 2) < 1.3 }))
        #expect(longGaps.unknown == 1, "\(longGaps.windowCounts)")
    }

    @Test("a gap beside strong tremor leaves the neighbouring windows judged, never voluntary", arguments: [9.5, 10.3, 10.9, 11.6, 12.2])
    func gapBesideTremor(gapStart: Double) {
        for length in [0.2, 0.9, 1.7, 3.1] {
            let tremor = TremorSignals.Tremor(peakToPeak: 14, frequency: 4.6, direction: Vector3(x: 0.7, y: -0.6, z: 0.4))
            let result = analyze(TremorSignals.samples(tremor: tremor, noise: 0.005, drop: { $0 >= gapStart && $0 < gapStart + length }))
            #expect(result.voluntaryWindows == 0, "gap \(gapStart)+\(length) s: \(result.windowCounts)")
            #expect(result.strong >= 26.0 / 30 - 1e-4, "gap \(gapStart)+\(length) s: \(result.windowCounts)")
        }
    }

    @Test("a voluntary movement (the forearm turning 30° in 1.5 s) is unknown, not tremor")
    func voluntaryTurn() {
        let tremor = TremorSignals.Tremor(peakToPeak: 2, frequency: 5)
        let from = Vector3(x: 0, y: 0, z: -1)
        let to = Vector3(x: sin(Double.pi / 6), y: 0, z: -cos(Double.pi / 6))
        let samples = TremorSignals.samples(gravity: .zero, tremor: tremor, noise: 0.005, extra: { time in
            let progress = max(0, min(1, (time - 21.2) / 1.5))
            let smooth = progress * progress * (3 - 2 * progress)
            return (from * (1 - smooth) + to * smooth).normalized
        })
        let result = analyze(samples)
        #expect(result.voluntaryWindows >= 1, "\(result.windowCounts)")
        #expect(result.voluntaryWindows <= 2)
        #expect(result.windowCounts[0] == result.voluntaryWindows)
        #expect(result.mild >= 27.0 / 30 - 1e-4, "the rest stays mild: \(result.windowCounts)")
    }

    @Test("a reach that does not turn the forearm is never tremor: its spectrum peaks below the band", arguments: [(0.3, 0.8), (0.4, 1.0), (0.2, 0.6), (0.15, 0.5), (0.4, 1.5)])
    func reach(distance: Double, duration: Double) {
        for begin in stride(from: 29.0, to: 32.0, by: 0.25) {
            // Minimum-jerk reach: a = X(60τ − 180τ² + 120τ³)/T², τ = (t − begin)/T.
            let samples = TremorSignals.samples(
                noise: 0.005,
                extra: { time in
                    let tau = (time - begin) / duration
                    guard tau >= 0 && tau < 1 else { return .zero }
                    let acceleration = distance * (60 * tau - 180 * tau * tau + 120 * tau * tau * tau) / (duration * duration)
                    return Vector3(x: acceleration / TremorSignals.standardGravity, y: 0, z: 0)
                })
            let result = analyze(samples)
            #expect(result.tremorWindows == 0, "\(distance) m in \(duration) s from \(begin) s: \(result.windowCounts)")
        }
    }

    @Test("the strongest tremor at 3 Hz is not read as voluntary movement", arguments: [0.0, 0.7, 1.4, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6])
    func strongTremorAtThreeHertz(phase: Double) {
        for frequency in [3.0, 3.1, 3.25] {
            for peakToPeak in [14.0, 25.0] {
                let tremor = TremorSignals.Tremor(peakToPeak: peakToPeak, frequency: frequency, direction: Vector3(x: 1, y: 0.4, z: 0.8), phase: phase)
                let result = analyze(TremorSignals.samples(tremor: tremor, noise: 0.005), seconds: 60)
                #expect(result.voluntaryWindows == 0, "\(peakToPeak) cm at \(frequency) Hz, phase \(phase): \(result.windowCounts)")
                #expect(result.strong == 1)
            }
        }
    }

    // MARK: Input shapes

    @Test("samples half a period off the minute's grid, or jittered by ±4 ms, land in their own slots")
    func samplePhase() {
        let tremor = TremorSignals.Tremor(peakToPeak: 14, frequency: 3.7, direction: Vector3(x: 0.2, y: -0.8, z: 0.6))
        for offset in [0.0, 0.0099, 0.01, 0.0101, 0.0199] {
            let result = analyze(TremorSignals.samples(offset: offset, tremor: tremor, noise: 0.005))
            #expect(result.strong == 1 && result.sampleCount == 3000, "offset \(offset): \(result.windowCounts), \(result.sampleCount) samples")
        }
        var random = SplitMix64(seed: 3)
        let jittered = TremorSignals.samples(offset: 0.01, tremor: tremor).map { sample in
            var moved = sample
            moved.startDate += random.nextDouble(in: -0.004...0.004)
            return moved
        }
        let result = analyze(jittered)
        #expect(result.strong == 1 && result.sampleCount == 3000, "\(result.windowCounts)")
    }

    @Test("duplicated, shuffled and out-of-interval samples change nothing")
    func inputShapes() {
        let tremor = TremorSignals.Tremor(peakToPeak: 6, frequency: 4.4, direction: Vector3(x: 0, y: 1, z: 1))
        let clean = TremorSignals.samples(tremor: tremor, noise: 0.005)
        let expected = analyze(clean)
        var random = SplitMix64(seed: 11)
        var messy = clean + clean.filter { _ in random.next() % 5 == 0 }
        for index in messy.indices.reversed() where index > 0 { messy.swapAt(index, Int(random.next() % UInt64(index + 1))) }
        let before = TremorSignals.samples(seconds: 5, tremor: tremor).map { sample in
            var earlier = sample
            earlier.startDate -= 5
            return earlier
        }
        let after = clean.prefix(200).map { sample in
            var later = sample
            later.startDate += 60
            return later
        }
        #expect(analyze(before + messy + after) == expected)
        #expect(expected.moderate == 1 && expected.sampleCount == 3000)
    }

    @Test("no samples, or an interval shorter than a window, is entirely unknown")
    func empty() {
        let none = analyze([])
        #expect(none.unknown == 1 && none.windowCount == 30 && none.missingDataWindows == 30 && none.sampleCount == 0)
        let short = Self.analyzer.analyze(samples: TremorSignals.samples(seconds: 1.5), from: Self.start, to: Self.start + 1.5)
        #expect(short.unknown == 1 && short.windowCount == 0)
        let backwards = Self.analyzer.analyze(samples: TremorSignals.samples(seconds: 4), from: Self.start + 4, to: Self.start)
        #expect(backwards.unknown == 1 && backwards.windowCount == 0)
    }

    @Test("an interval that is not a whole number of windows counts only whole windows")
    func partialWindow() {
        let tremor = TremorSignals.Tremor(peakToPeak: 2, frequency: 5)
        let result = Self.analyzer.analyze(samples: TremorSignals.samples(seconds: 7, tremor: tremor), from: Self.start, to: Self.start + 7)
        #expect(result.windowCount == 3 && result.mild == 1 && result.sampleCount == 300)
    }
}
