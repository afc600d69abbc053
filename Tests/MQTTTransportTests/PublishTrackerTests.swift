import Testing

@testable import MQTTTransport

@Suite("Publish bookkeeping")
struct PublishTrackerTests {
    @Test("slots are bounded and a released slot passes straight to a waiter")
    func slots() async throws {
        var tracker = PublishTracker(capacity: 2)
        let acquired = [tracker.tryAcquireSlot(), tracker.tryAcquireSlot(), tracker.tryAcquireSlot()]
        #expect(acquired == [true, true, false])
        tracker.register(mid: 1, qos: .atLeastOnce, completion: nil)
        tracker.register(mid: 2, qos: .atMostOnce, completion: nil)
        // The waiter's continuation must be resumed (by the hand-off) for this to return.
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            _ = tracker.enqueueSlotWaiter(waiter)
            #expect(tracker.waitingForSlot == 1)
            let outcome = tracker.complete(mid: 1, succeeded: true)
            #expect(outcome?.pending.qos == .atLeastOnce)
            // The slot went to the waiter: still 2 in use, nobody waiting.
            #expect(tracker.slotsInUse == 2)
            #expect(tracker.waitingForSlot == 0)
            outcome?.slotHandoff?.resume()
        }
        #expect(tracker.counters.acknowledged == 1)
    }

    @Test("a waiter is woken once an eighth of the slots is free, not at every acknowledgement")
    func batchedWakeUps() async throws {
        var tracker = PublishTracker(capacity: 64)
        #expect(tracker.wakeThreshold == 8)
        for mid in Int32(1)...64 {
            let acquired = tracker.tryAcquireSlot()
            #expect(acquired)
            tracker.register(mid: mid, qos: .atLeastOnce, completion: nil)
        }
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            _ = tracker.enqueueSlotWaiter(waiter)
            for mid in Int32(1)...7 {
                #expect(tracker.complete(mid: mid, succeeded: true)?.slotHandoff == nil)
            }
            #expect(tracker.waitingForSlot == 1)
            let eighth = tracker.complete(mid: 8, succeeded: true)
            // The waiter holds one slot; seven more are free for it to take without waiting.
            #expect(tracker.slotsInUse == 57)
            #expect(tracker.waitingForSlot == 0)
            eighth?.slotHandoff?.resume()
        }
        let taken = (0..<8).map { _ in tracker.tryAcquireSlot() }
        #expect(taken == Array(repeating: true, count: 7) + [false])
    }

    @Test("waiters are woken while nothing is in flight, whatever the threshold")
    func noStallWhenIdle() async throws {
        var tracker = PublishTracker(capacity: 1024)
        for _ in 0..<1024 { _ = tracker.tryAcquireSlot() }
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            _ = tracker.enqueueSlotWaiter(waiter)
            var handoff: CheckedContinuation<Void, any Error>?
            for _ in 0..<1024 where handoff == nil {
                handoff = tracker.abandonSlot().handoff
            }
            #expect(handoff != nil)
            #expect(tracker.slotsInUse == 1024 - 64 + 1)
            handoff?.resume()
        }
    }

    @Test("a lost connection fails QoS 0 only; unknown ids are ignored")
    func failQoS0() {
        var tracker = PublishTracker(capacity: 4)
        for mid in Int32(1)...3 {
            let acquired = tracker.tryAcquireSlot()
            #expect(acquired)
            tracker.register(mid: mid, qos: mid == 2 ? .atMostOnce : .atLeastOnce, completion: nil)
        }
        let outcome = tracker.failAll { $0.qos == .atMostOnce }
        #expect(outcome.failed.isEmpty)
        #expect(tracker.pending.keys.sorted() == [1, 3])
        #expect(tracker.slotsInUse == 2)
        #expect(tracker.counters.failed == 1)
        let unknown = tracker.complete(mid: 42, succeeded: true)
        #expect(unknown == nil)
    }
}
