import Testing
import TelemetrySimulation

@testable import TelemetryCore

/// The ring's bulk append against one `append` per element, through wrap-around and skips.
@Suite struct SampleRingTests {
    @Test("append(count:_:) leaves the ring exactly as one append per kept element, seeded")
    func bulkAppend() {
        var random = SplitMix64(seed: 800)
        var wrapped = 0
        for _ in 0..<500 {
            let capacity = Int.random(in: 1...12, using: &random)
            var single = SampleRing(capacity: capacity, filler: -1)
            var bulk = single
            var next = 0
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let made = (0..<Int.random(in: 0...30, using: &random)).map { _ -> Int? in
                    defer { next += 1 }
                    return Int.random(in: 0..<4, using: &random) == 0 ? nil : next
                }
                for case let element? in made { single.append(element) }
                bulk.append(count: made.count) { made[$0] }
                #expect(bulk.count == single.count && bulk.startIndex == single.startIndex && bulk.endIndex == single.endIndex)
                #expect((bulk.startIndex..<bulk.endIndex).map { bulk[absolute: $0] } == (single.startIndex..<single.endIndex).map { single[absolute: $0] })
                #expect(bulk.first == single.first && bulk.last == single.last)
            }
            if single.endIndex > capacity { wrapped += 1 }
        }
        #expect(wrapped > 100, "rings that wrapped around: \(wrapped)")
    }
}
