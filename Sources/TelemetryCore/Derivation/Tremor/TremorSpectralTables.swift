#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The weights and Hann-weighted sines and cosines a ``TremorAnalyzer`` evaluates every window
/// with, computed once per (window length, frequency grid).
///
/// The spectrum is a direct DFT on a fine grid rather than an FFT: 201 frequencies × 100 samples
/// × 3 axes is ≈ 60,000 multiply-adds per window, and the grid can be as fine as the frequency
/// estimate needs without zero padding.
struct TremorSpectralTables: Sendable {
    /// Samples per window, N.
    let sampleCount: Int
    /// The grid, Hz.
    let frequencies: [Double]
    /// Hann weights w[n] = sin²(π(n + ½)/N): every weight is positive, so every sample counts.
    let hann: [Double]
    /// w[n]·cos(2πf·n/rate), row `f` after row (frequency-major, N per row).
    let weightedCosine: [Double]
    /// w[n]·sin(2πf·n/rate), laid out as ``weightedCosine``.
    let weightedSine: [Double]
    /// Hann weights over the first half of the window (slots 0..<N/2), for its mean vector.
    let firstHalf: [Double]
    /// Hann weights over the second half (slots N/2..<N).
    let secondHalf: [Double]

    /// Builds the tables.
    /// - Parameters:
    ///   - sampleCount: N, samples per window (≥ 2).
    ///   - sampleRate: Hz.
    ///   - frequencies: the grid, Hz.
    init(sampleCount: Int, sampleRate: Double, frequencies: [Double]) {
        self.sampleCount = sampleCount
        self.frequencies = frequencies
        hann = Self.hann(sampleCount)
        var cosine = [Double](repeating: 0, count: frequencies.count * sampleCount)
        var sine = cosine
        for (row, frequency) in frequencies.enumerated() {
            for slot in 0..<sampleCount {
                let phase = 2 * Double.pi * frequency * Double(slot) / sampleRate
                cosine[row * sampleCount + slot] = hann[slot] * cos(phase)
                sine[row * sampleCount + slot] = hann[slot] * sin(phase)
            }
        }
        weightedCosine = cosine
        weightedSine = sine
        firstHalf = Self.hann(sampleCount / 2)
        secondHalf = Self.hann(sampleCount - sampleCount / 2)
    }

    /// The symmetric, all-positive Hann window sin²(π(n + ½)/count).
    static func hann(_ count: Int) -> [Double] {
        (0..<count).map { slot in
            let value = sin(Double.pi * (Double(slot) + 0.5) / Double(count))
            return value * value
        }
    }
}
