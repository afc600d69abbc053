import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The held recorder chunks of a failing store: order, back-off, the bytes' bound.
@Suite struct RecorderRetryQueueTests {
    private static func held(_ identifier: UInt64, samples: Int = 150) -> RecorderRetryQueue.Held {
        let chunk = RecordedAccelerometerChunk(
            identifier: identifier,
            samples: (0..<samples).map { RecordedAccelerometerSample(timestamp: Double($0), startDate: Double($0), acceleration: Vector3(x: 0, y: 0, z: 1)) })
        return .init(chunk: chunk, device: DeviceID("watch-1")!, receivedAt: 0, traceParent: nil, countdown: nil)
    }

    @Test("held in arrival order; retried after 0.5 s, backing off to 10 s; a success resets the back-off")
    func backoff() {
        let start = SuspendingClock.now
        var queue = RecorderRetryQueue(maximumBytes: 1 << 20)
        #expect(!queue.isDue(at: start))
        #expect(queue.hold(Self.held(1), at: start).isEmpty)
        #expect(queue.hold(Self.held(2), at: start + .seconds(0.1)).isEmpty)
        #expect(!queue.isDue(at: start + .milliseconds(499)))
        #expect(queue.isDue(at: start + .milliseconds(500)))
        var now = start + .milliseconds(500)
        var waits: [Duration] = []
        for _ in 0..<7 {
            queue.failed(at: now)
            var wait = Duration.zero
            while !queue.isDue(at: now + wait) { wait += .milliseconds(250) }
            waits.append(wait)
            now += wait
        }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10), .seconds(10)])
        #expect(queue.first?.chunk.identifier == 1)
        queue.storedFirst()
        #expect(queue.first?.chunk.identifier == 2)
        queue.failed(at: now)
        #expect(queue.isDue(at: now + .seconds(1)), "back-off restarted after a success")
        queue.storedFirst()
        #expect(queue.isEmpty && !queue.isDue(at: now + .seconds(60)))
    }

    @Test("beyond the bytes' bound the oldest are let go, never the newest")
    func bounded() {
        let one = Self.held(0).bytes
        let now = SuspendingClock.now
        var queue = RecorderRetryQueue(maximumBytes: one * 3)
        var dropped: [UInt64] = []
        for identifier in 1...5 { dropped += queue.hold(Self.held(UInt64(identifier)), at: now).map(\.chunk.identifier) }
        #expect(dropped == [1, 2])
        #expect(queue.held.map(\.chunk.identifier) == [3, 4, 5])
        // One chunk larger than the bound is still held (alone).
        var small = RecorderRetryQueue(maximumBytes: 10)
        #expect(small.hold(Self.held(9), at: now).isEmpty && small.held.count == 1)
    }
}
