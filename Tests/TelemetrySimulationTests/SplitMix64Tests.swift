import Testing
import TelemetrySimulation

@Suite("SplitMix64")
struct SplitMix64Tests {
    @Test("matches the reference sequence for seed 0")
    func referenceValues() {
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }

    @Test("same seed, same sequence; different seed, different sequence")
    func repeatable() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        var other = SplitMix64(seed: 43)
        let a = (0..<100).map { _ in first.next() }
        #expect(a == (0..<100).map { _ in second.next() })
        #expect(a != (0..<100).map { _ in other.next() })
    }

    @Test("unit interval and Gaussian noise have the expected moments")
    func distributions() {
        var generator = SplitMix64(seed: 7)
        let count = 200_000
        var uniformSum = 0.0
        var sum = 0.0
        var squares = 0.0
        var allInUnitInterval = true
        for _ in 0..<count {
            let u = generator.nextUnitInterval()
            allInUnitInterval = allInUnitInterval && u >= 0 && u < 1
            uniformSum += u
            let g = generator.nextGaussian(mean: 2, standardDeviation: 0.5)
            sum += g
            squares += g * g
        }
        let mean = sum / Double(count)
        let variance = squares / Double(count) - mean * mean
        #expect(allInUnitInterval)
        #expect(abs(uniformSum / Double(count) - 0.5) < 0.005)
        #expect(abs(mean - 2) < 0.01)
        #expect(abs(variance.squareRoot() - 0.5) < 0.01)
    }

    @Test("derived seeds and stable hashes are fixed functions of their inputs")
    func derivation() {
        #expect(SplitMix64.stableHash("") == 0xCBF2_9CE4_8422_2325)
        #expect(SplitMix64.stableHash("a") == 0xAF63_DC4C_8601_EC8C)
        #expect(SplitMix64.derivedSeed(1, salt: 2) == SplitMix64.derivedSeed(1, salt: 2))
        #expect(SplitMix64.derivedSeed(1, salt: 2) != SplitMix64.derivedSeed(1, salt: 3))
    }
}
