#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A small, fast, seedable random number generator (Steele, Lea and Flood's SplitMix64).
///
/// The same seed always gives the same sequence on every platform, which makes simulated
/// traffic repeatable: `--seed 1` today produces the same bytes as `--seed 1` tomorrow.
/// Not for cryptography.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// The second normal deviate of the last Box–Muller pair, not yet handed out.
    private var spareGaussian: Double?

    /// Creates a generator whose sequence is fully determined by `seed`.
    /// - Parameter seed: any value; 0 is fine.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniform double in `range`.
    public mutating func nextDouble(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnitInterval()
    }

    /// A standard normal deviate (mean 0, standard deviation 1), by the Box–Muller transform.
    public mutating func nextGaussian() -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare
        }
        let radius = (-2 * log(1 - nextUnitInterval())).squareRoot()  // 1 − u is in (0, 1]
        let angle = 2 * Double.pi * nextUnitInterval()
        spareGaussian = radius * sin(angle)
        return radius * cos(angle)
    }

    /// Gaussian noise with the given mean and standard deviation (same unit as both).
    public mutating func nextGaussian(mean: Double = 0, standardDeviation: Double) -> Double {
        mean + standardDeviation * nextGaussian()
    }

    /// A seed for an independent generator derived from `seed` and `salt`: the same inputs
    /// always give the same seed, and different salts give unrelated sequences.
    public static func derivedSeed(_ seed: UInt64, salt: UInt64) -> UInt64 {
        var generator = SplitMix64(seed: seed ^ (salt &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }

    /// A stable 64-bit hash (FNV-1a) of a string's UTF-8 bytes, for deriving seeds from names.
    public static func stableHash(_ string: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in string.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
