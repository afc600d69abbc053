import Foundation
import Locking
import Testing

@testable import TelemetryGateway

@Suite("Hand-off queue between the network thread and a worker")
struct HandoffQueueTests {
    @Test("delivers everything in order, in batches, then nil after close")
    func ordered() async {
        let queue = HandoffQueue<Int>(capacity: 8, clock: SystemGatewayClock())
        let producer = Thread {
            for value in 0..<1_000 { _ = queue.push(value, maxWait: 10) }
            queue.close()
        }
        producer.start()
        var received: [Int] = []
        var batches = 0
        while let batch = await queue.next() {
            received += batch
            batches += 1
        }
        #expect(received == Array(0..<1_000))
        #expect(batches <= 1_000)
    }

    @Test("a full queue blocks the producer until the consumer makes room")
    func blocksWhenFull() async {
        let queue = HandoffQueue<Int>(capacity: 2, clock: SystemGatewayClock())
        #expect(queue.push(1, maxWait: 1) == .accepted(waited: 0))
        #expect(queue.push(2, maxWait: 1) == .accepted(waited: 0))
        let outcome = LockedState<HandoffQueue<Int>.PushOutcome?>(nil)
        let pushed = DispatchSemaphore(value: 0)
        Thread {
            let result = queue.push(3, maxWait: 30)
            outcome.withLock { $0 = result }
            pushed.signal()
        }.start()
        // The producer cannot finish while the queue is full...
        #expect(pushed.wait(timeout: .now() + 0.2) == .timedOut)
        // ...and finishes as soon as the consumer takes the batch.
        #expect(await queue.next() == [1, 2])
        pushed.wait()
        let result = outcome.withLock { $0 }
        guard case .accepted(let waited) = result else {
            Issue.record("expected accepted, got \(String(describing: result))")
            return
        }
        #expect(waited > 0)
        #expect(await queue.next() == [3])
    }

    @Test("after the maximum wait the element is admitted over capacity, never dropped")
    func overCapacity() async {
        let queue = HandoffQueue<Int>(capacity: 1, clock: SystemGatewayClock())
        _ = queue.push(1, maxWait: 1)
        let outcome = queue.push(2, maxWait: 0.05)
        guard case .acceptedOverCapacity(let waited) = outcome else {
            Issue.record("expected over capacity, got \(outcome)")
            return
        }
        #expect(waited >= 0.05)
        #expect(queue.depth == 2)
        #expect(await queue.next() == [1, 2])
    }

    @Test("control elements bypass capacity; pushes after close are refused")
    func controlAndClose() async {
        let queue = HandoffQueue<Int>(capacity: 1, clock: SystemGatewayClock())
        _ = queue.push(1, maxWait: 1)
        #expect(queue.pushControl(99))
        queue.close()
        #expect(queue.push(2, maxWait: 1) == .closed)
        #expect(!queue.pushControl(3))
        #expect(await queue.next() == [1, 99])
        #expect(await queue.next() == nil)
    }
}
