import Foundation
import TelemetryCore
import Testing

/// The impact detector's high-pass biquad (RBJ cookbook, Butterworth Q).
@Suite("Swing high-pass filter")
struct SwingFilterTests {
    static let sampleRate = 800.0
    static let filter = Biquad.highPass(cutoff: 30, sampleRate: sampleRate)

    @Test("Butterworth response: 0 at DC, −3 dB at the cutoff, flat above, −12 dB per octave below")
    func response() {
        let filter = Self.filter
        #expect(abs(filter.directCurrentGain) < 1e-12)
        #expect(abs(filter.magnitude(atFrequency: 30, sampleRate: Self.sampleRate) - 1 / 2.0.squareRoot()) < 1e-9)
        for frequency in [90.0, 150, 220, 300] {
            #expect(abs(filter.magnitude(atFrequency: frequency, sampleRate: Self.sampleRate) - 1) < 0.06, "\(frequency) Hz")
        }
        // Arm motion: 2–5 Hz is attenuated by (f/fc)² or more.
        for frequency in [1.0, 2, 5] {
            let expected = pow(frequency / 30, 2)
            #expect(filter.magnitude(atFrequency: frequency, sampleRate: Self.sampleRate) <= expected * 1.05, "\(frequency) Hz")
        }
        let octave = filter.magnitude(atFrequency: 5, sampleRate: Self.sampleRate) / filter.magnitude(atFrequency: 10, sampleRate: Self.sampleRate)
        #expect(abs(20 * log10(octave) + 12) < 0.5)
    }

    @Test("the cookbook coefficients for 30 Hz at 800 Hz")
    func coefficients() {
        let omega = 2 * Double.pi * 30 / 800
        let alpha = sin(omega) / (2 / 2.0.squareRoot())
        let a0 = 1 + alpha
        let filter = Self.filter
        #expect(abs(filter.b0 - (1 + cos(omega)) / 2 / a0) < 1e-15)
        #expect(abs(filter.b1 + (1 + cos(omega)) / a0) < 1e-15)
        #expect(abs(filter.b2 - filter.b0) < 1e-15)
        #expect(abs(filter.a1 + 2 * cos(omega) / a0) < 1e-15)
        #expect(abs(filter.a2 - (1 - alpha) / a0) < 1e-15)
    }

    @Test("measured steady-state amplitude matches the designed magnitude", arguments: [3.0, 12, 30, 120, 250])
    func measuredAmplitude(frequency: Double) {
        var filter = Self.filter
        var peak = 0.0
        for index in 0..<8_000 {
            let output = filter.process(sin(2 * Double.pi * frequency * Double(index) / Self.sampleRate))
            if index >= 4_000 { peak = max(peak, abs(output)) }
        }
        let designed = Self.filter.magnitude(atFrequency: frequency, sampleRate: Self.sampleRate)
        #expect(abs(peak - designed) < 0.01 * max(designed, 0.05), "\(frequency) Hz: measured \(peak), designed \(designed)")
    }

    @Test("a restart on a steady level (gravity) has no transient; a step does")
    func steadyReset() {
        var filter = Self.filter
        filter.reset(steadyInput: -0.98)
        for _ in 0..<100 { #expect(abs(filter.process(-0.98)) < 1e-12) }
        var cold = Self.filter
        #expect(abs(cold.process(-0.98)) > 0.5, "without the reset the offset looks like a shock")
    }
}
