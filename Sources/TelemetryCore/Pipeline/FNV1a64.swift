/// 64-bit FNV-1a, the fixed, unseeded hash behind shard routing and event ids.
///
/// Unlike `Hasher`, which is seeded per process, it gives the same value for the same bytes on
/// every run, process and platform.
struct FNV1a64: Sendable {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    private(set) var value: UInt64 = Self.offsetBasis

    @inline(__always)
    mutating func combine(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* Self.prime
    }

    mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { combine(byte) }
    }

    /// The hash of `bytes`.
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hasher = FNV1a64()
        hasher.combine(bytes)
        return hasher.value
    }
}
