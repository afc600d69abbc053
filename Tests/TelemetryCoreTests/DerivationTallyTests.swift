import Testing

@testable import TelemetryCore

/// What the derivations count for metrics: per frame in ``FrameResult/derived``.
@Suite("Derivation tally")
struct DerivationTallyTests {
    @Test("frames of devices beyond the tracked maximum are counted as untracked, per frame")
    func untrackedFrames() {
        var processor = FrameProcessor(configuration: .init(maxTrackedDevices: 1))
        // A status frame feeds the headphone deriver (a hello feeds none, so it would not count).
        let status = Array(#"{"state":"online"}"#.utf8)
        let first = processor.process(InboundFrame(topic: "wearables/watch-a/status", payload: status, receivedAt: 1))
        #expect(first.derived.untrackedFrames == 0)
        let second = processor.process(InboundFrame(topic: "wearables/watch-b/status", payload: status, receivedAt: 2))
        #expect(second.derived.untrackedFrames == 1)
        #expect(!second.derived.isZero)
    }

    @Test("strokes are tallied by kind; differences are per frame")
    func strokes() {
        var tally = DerivationTally()
        tally.count(.unknown)
        tally.count(.forehand)
        let earlier = tally
        tally.count(.unknown)
        let delta = tally.since(earlier)
        #expect(delta.unknownStrokes == 1 && delta.forehandStrokes == 0 && delta.backhandStrokes == 0)
        var sum = earlier
        sum.add(delta)
        #expect(sum == tally)
    }
}
