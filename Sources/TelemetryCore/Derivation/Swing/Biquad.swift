#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A second-order IIR filter section (biquad), in transposed direct form II.
///
/// `y[n] = b0·x[n] + b1·x[n−1] + b2·x[n−2] − a1·y[n−1] − a2·y[n−2]` (coefficients normalised
/// so that a0 = 1). Two numbers of state, no allocation, one multiply-add chain per sample.
/// ``highPass(cutoff:sampleRate:q:)`` designs the high-pass of R. Bristow-Johnson's "Audio EQ
/// Cookbook" (bilinear transform with frequency pre-warping); with `q = 1/√2` it is a
/// second-order Butterworth: maximally flat pass band, −3 dB at the cutoff, −12 dB per octave
/// below it.
public struct Biquad: Sendable, Equatable {
    /// Feed-forward coefficients.
    public let b0: Double, b1: Double, b2: Double
    /// Feedback coefficients (a0 normalised to 1).
    public let a1: Double, a2: Double
    private var z1 = 0.0
    private var z2 = 0.0

    /// Creates a section from normalised coefficients (a0 = 1), with zero state.
    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.a1 = a1
        self.a2 = a2
    }

    /// The cookbook high-pass.
    /// - Parameters:
    ///   - cutoff: the −3 dB frequency (for `q = 1/√2`), Hz; below half the sample rate.
    ///   - sampleRate: samples per second, Hz.
    ///   - q: the quality factor; `1/√2` (default) is Butterworth.
    /// - Returns: the section, with zero state.
    public static func highPass(cutoff: Double, sampleRate: Double, q: Double = 1 / 2.0.squareRoot()) -> Biquad {
        precondition(cutoff > 0 && cutoff < sampleRate / 2, "cutoff \(cutoff) Hz must be in (0, \(sampleRate / 2)) Hz")
        let omega = 2 * Double.pi * cutoff / sampleRate
        let cosine = cos(omega)
        let alpha = sin(omega) / (2 * q)
        let a0 = 1 + alpha
        return Biquad(
            b0: (1 + cosine) / 2 / a0,
            b1: -(1 + cosine) / a0,
            b2: (1 + cosine) / 2 / a0,
            a1: -2 * cosine / a0,
            a2: (1 - alpha) / a0
        )
    }

    /// Filters one sample.
    /// - Parameter input: the next input sample.
    /// - Returns: the output sample.
    @inline(__always)
    public mutating func process(_ input: Double) -> Double {
        let output = b0 * input + z1
        z1 = b1 * input - a1 * output + z2
        z2 = b2 * input - a2 * output
        return output
    }

    /// The gain for a constant input: `(b0 + b1 + b2) / (1 + a1 + a2)` (0 for a high-pass).
    public var directCurrentGain: Double { (b0 + b1 + b2) / (1 + a1 + a2) }

    /// Sets the state as if `input` had been constant forever, so a filter (re)started on a
    /// signal with an offset (gravity on the accelerometer) shows no start-up transient.
    /// - Parameter input: the level the signal has been at.
    public mutating func reset(steadyInput input: Double) {
        let output = directCurrentGain * input
        z2 = b2 * input - a2 * output
        z1 = b1 * input - a1 * output + z2
    }

    /// The magnitude response `|H(e^{jω})|` at `frequency`.
    /// - Parameters:
    ///   - frequency: Hz.
    ///   - sampleRate: Hz.
    /// - Returns: the gain (1 = unchanged amplitude).
    public func magnitude(atFrequency frequency: Double, sampleRate: Double) -> Double {
        let omega = 2 * Double.pi * frequency / sampleRate
        // H = (b0 + b1 e^{-jω} + b2 e^{-2jω}) / (1 + a1 e^{-jω} + a2 e^{-2jω})
        let numeratorReal = b0 + b1 * cos(omega) + b2 * cos(2 * omega)
        let numeratorImaginary = -(b1 * sin(omega) + b2 * sin(2 * omega))
        let denominatorReal = 1 + a1 * cos(omega) + a2 * cos(2 * omega)
        let denominatorImaginary = -(a1 * sin(omega) + a2 * sin(2 * omega))
        let numerator = (numeratorReal * numeratorReal + numeratorImaginary * numeratorImaginary).squareRoot()
        let denominator = (denominatorReal * denominatorReal + denominatorImaginary * denominatorImaginary).squareRoot()
        return numerator / denominator
    }
}
