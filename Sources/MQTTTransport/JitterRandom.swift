/// The random numbers behind reconnect jitter: SplitMix64 seeded from the system's generator.
///
/// Jitter needs spread, not secrecy. `SystemRandomNumberGenerator` would do, but it has no
/// stored state, and ThreadSanitizer's runtime crashes on an `inout` access to such an empty
/// value (swiftlang/swift#66099); with this generator the client runs under
/// `scripts/sanitize.sh thread`.
struct JitterRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A generator with a fresh seed from the system's generator.
    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    /// A repeatable generator (tests).
    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
