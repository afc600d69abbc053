import Foundation
import TelemetryCore
import Testing

/// Impacts on the high-passed accelerometer z axis, timed from the original samples.
@Suite("Swing impact detector")
struct SwingImpactDetectorTests {
    static let configuration = SwingConfiguration()

    /// Feeds `batches` one by one (each in the window's chunks, scanned after each), and
    /// returns every impact found.
    static func impacts(_ batches: [[AccelerometerSample]], final: Bool = false) -> [Impact] {
        var window = BatchAlignmentWindow(configuration: configuration)
        var detector = ImpactDetector(configuration: configuration)
        var found: [Impact] = []
        for batch in batches {
            _ = detector.append(batch, to: &window) { found.append($0) }
        }
        if final { _ = detector.scan(window, final: true) { found.append($0) } }
        return found
    }

    static let contact = 10.400_3
    /// Gravity, a 2 g arm motion at 2 Hz and a 6 g contact at 150 Hz.
    static func signal(_ time: Double) -> Double {
        -1 + 2 * sin(2 * Double.pi * 2 * time) + SwingSignals.ringDown(at: contact)(time)
    }

    @Test("an impact is found once, its instant from the first original sample showing the shock")
    func findsImpact() throws {
        let samples = SwingSignals.accelerometer(from: 10, to: 11, z: Self.signal(_:))
        let impacts = Self.impacts([samples])
        try #require(impacts.count == 1)
        let impact = impacts[0]
        #expect(impact.timestamp >= Self.contact && impact.timestamp <= Self.contact + 1.25e-3 + 1e-9, "\(impact)")
        #expect(samples.contains { $0.timestamp == impact.timestamp }, "the instant is an original sample's timestamp")
        #expect(impact.peak >= 3 && impact.peakTimestamp >= impact.timestamp && impact.peakTimestamp < Self.contact + 0.01)
    }

    @Test("the same impact whatever the batch split, even at the impact itself", arguments: [10.3, 10.4, 10.4004, 10.401, 10.41])
    func batchSplit(split: Double) {
        let whole = Self.impacts([SwingSignals.accelerometer(from: 10, to: 11, z: Self.signal(_:))])
        let first = SwingSignals.accelerometer(from: 10, to: split, z: Self.signal(_:))
        let second = SwingSignals.accelerometer(from: 10, to: 11, z: Self.signal(_:)).filter { $0.timestamp > (first.last?.timestamp ?? 0) }
        #expect(Self.impacts([first, second]) == whole)
    }

    @Test("arm motion, gravity changes and heel strikes are not impacts")
    func lowFrequencyIsNoImpact() {
        let arm = SwingSignals.accelerometer(from: 0, to: 3) { time in -1 + 3 * sin(2 * Double.pi * 3 * time) + 4 * sin(2 * Double.pi * 0.5 * time) }
        #expect(Self.impacts([arm], final: true).isEmpty)
        let heelStrikes = SwingSignals.accelerometer(from: 0, to: 3) { time in
            -1 + SwingSignals.ringDown(at: 0.5, amplitude: 0.4, frequency: 40, decay: 0.012)(time)
                + SwingSignals.ringDown(at: 1.05, amplitude: 0.4, frequency: 40, decay: 0.012)(time)
        }
        #expect(Self.impacts([heelStrikes], final: true).isEmpty)
    }

    @Test("a ring-down's later peaks are not new impacts; a second contact after the refractory time is")
    func refractory() {
        let close = SwingSignals.accelerometer(from: 0, to: 1) { time in
            SwingSignals.ringDown(at: 0.3)(time) + SwingSignals.ringDown(at: 0.36)(time)
        }
        #expect(Self.impacts([close], final: true).count == 1)
        let apart = SwingSignals.accelerometer(from: 0, to: 1) { time in
            SwingSignals.ringDown(at: 0.3)(time) + SwingSignals.ringDown(at: 0.6)(time)
        }
        #expect(Self.impacts([apart], final: true).map(\.timestamp).count == 2)
    }

    @Test("a candidate waits for its peak window; the final scan takes what there is")
    func waitsForPeakWindow() {
        let samples = SwingSignals.accelerometer(from: 10, to: 10.405, z: Self.signal(_:))
        #expect(Self.impacts([samples]).isEmpty)
        #expect(Self.impacts([samples], final: true).count == 1)
    }
}
