import TelemetryCore
import TelemetrySimulation

/// Feeds one simulated watch's traffic to a `FrameProcessor` that lives across benchmark
/// iterations, second by second and in time order, as a gateway worker sees it: every frame is
/// new (advancing timestamps and sequence numbers), so the sequence tracker and the derivations
/// (the swing detector on the batched streams) do their steady-state work.
///
/// After the last recorded second it starts over with a fresh processor (and the warm-up
/// prefix), so a benchmark can run any number of iterations; callers measure around
/// ``process(_:)`` with `startMeasurement()`, which keeps the restart out of the figures.
final class Replay {
    /// The first simulated seconds (hello, authorization, workout start, the first batches):
    /// processed, unmeasured, whenever a processor is created.
    let prefix: [InboundFrame]

    /// The encoding of the high-rate frames.
    let encoding: PayloadEncoding

    /// Steady-state seconds; each holds exactly one frame of each batched stream.
    let seconds: [[InboundFrame]]

    private var processor = FrameProcessor()
    private var next = 0

    /// A replay of the watch's traffic with its high-rate frames in `encoding`.
    init(encoding: PayloadEncoding = .json) {
        let timeline = encoding == .json ? Fixtures.timeline : Fixtures.protobufTimeline
        self.encoding = encoding
        prefix = timeline.prefix
        seconds = timeline.seconds
        warmUp()
    }

    /// The frames of the next steady-state second (starting over after the last one).
    func nextSecond() -> [InboundFrame] {
        if next == seconds.count {
            processor = FrameProcessor()
            warmUp()
            next = 0
        }
        defer { next += 1 }
        return seconds[next]
    }

    /// Processes one frame.
    func process(_ frame: InboundFrame) -> FrameResult {
        processor.process(frame)
    }

    private func warmUp() {
        for frame in prefix {
            _ = processor.process(frame)
        }
    }
}
