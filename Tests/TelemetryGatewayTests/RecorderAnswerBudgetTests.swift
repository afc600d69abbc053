import Testing

@testable import TelemetryGateway

@Suite("Publish budget of recorder answers")
struct RecorderAnswerBudgetTests {
    @Test("at most limit places are taken; a waiter gets the next released place, first come first served")
    func boundedAndOrdered() async throws {
        let budget = RecorderAnswerBudget(limit: 2)
        try await budget.acquire()
        try await budget.acquire()
        #expect(budget.inFlight == 2)
        let order = WaiterOrder()
        let first = Task {
            try await budget.acquire()
            await order.append(1)
        }
        // The first waiter must be queued before the second: wait until it is (bounded).
        try await order.waitUntil(queuedIn: budget, waiters: 1)
        let second = Task {
            try await budget.acquire()
            await order.append(2)
        }
        try await order.waitUntil(queuedIn: budget, waiters: 2)
        #expect(await order.values.isEmpty, "no place was free")
        budget.release()
        try await first.value
        #expect(await order.values == [1])
        budget.release()
        try await second.value
        #expect(await order.values == [1, 2])
        #expect(budget.inFlight == 2)
        budget.release()
        budget.release()
        #expect(budget.inFlight == 0)
        // More releases than acquisitions never raise the limit.
        budget.release()
        #expect(budget.inFlight == 0)
    }

    @Test("a task cancelled while waiting throws CancellationError and takes no place")
    func cancellation() async throws {
        let budget = RecorderAnswerBudget(limit: 1)
        try await budget.acquire()
        let waiter = Task { try await budget.acquire() }
        try await WaiterOrder().waitUntil(queuedIn: budget, waiters: 1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(budget.waiting == 0)
        budget.release()
        #expect(budget.inFlight == 0)
        try await budget.acquire()
        #expect(budget.inFlight == 1)
        // Already cancelled: refused even with a place free.
        budget.release()
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await budget.acquire()
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(budget.inFlight == 0)
    }
}

/// The order in which waiters got their place, and a bounded wait for waiters to queue.
private actor WaiterOrder {
    private(set) var values: [Int] = []

    func append(_ value: Int) { values.append(value) }

    /// Polls (bounded, 10 s) until `waiters` tasks wait on `budget`.
    nonisolated func waitUntil(queuedIn budget: RecorderAnswerBudget, waiters: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while budget.waiting < waiters {
            guard ContinuousClock.now < deadline else { throw BudgetTestFailure(waiting: budget.waiting, expected: waiters) }
            await Task.yield()
        }
    }
}

/// No waiter queued in time.
private struct BudgetTestFailure: Error, CustomStringConvertible {
    let waiting: Int
    let expected: Int
    var description: String { "\(waiting) tasks waited for the budget after 10 s, expected \(expected)" }
}
