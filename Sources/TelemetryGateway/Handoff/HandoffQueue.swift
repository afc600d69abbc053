import Locking

/// The bounded hand-off between libmosquitto's network thread (one producer) and one worker
/// task (the consumer).
///
/// - The producer never loses an element. When the queue is full it **blocks** the network
///   thread for at most `maxWait` seconds, which stops the socket being read and so pushes back
///   on the broker (together with the MQTT 5 receive maximum). Only the subscribe-only
///   connection uses this queue, so blocking never stalls a PUBACK or PINGREQ we owe.
/// - If the worker has not made room by then, the element is admitted over capacity instead of
///   waiting longer (the keepalive must not expire) and the caller counts it: overload is
///   visible in metrics and logs, never a silent drop.
/// - The consumer takes everything available in one call, which amortises the task resumption
///   that made a per-message `AsyncStream` cost about 40 % at high rates.
final class HandoffQueue<Element: Sendable>: @unchecked Sendable {
    /// How a push went.
    enum PushOutcome: Equatable {
        /// Taken; `waited` is how long the producer was blocked (0 when there was room).
        case accepted(waited: Double)
        /// Taken beyond capacity after blocking `waited` seconds.
        case acceptedOverCapacity(waited: Double)
        /// The queue is closed (shutdown); the element was not taken.
        case closed
    }

    let capacity: Int
    /// The byte bound shared by all queues (nil: counted elements only).
    let budget: BufferBudget?
    /// Where a producer's wait is measured. The thread still blocks on the condition, in real
    /// time: its deadline is this clock's monotonic now plus the wait, which on the system clock
    /// is `CLOCK_MONOTONIC`, the condition's own.
    private let clock: any GatewayClock
    private let condition = MonotonicCondition()
    private var buffer: [Element] = []
    /// Bytes of the queued elements, given back to the budget when the consumer takes them.
    private var bufferedBytes = 0
    private var closed = false
    private var consumer: CheckedContinuation<[Element]?, Never>?

    /// Creates a queue holding at most `capacity` elements (and, with a budget, at most the
    /// budget's bytes over all queues sharing it) before producers block; waits are measured on
    /// `clock`.
    init(capacity: Int, budget: BufferBudget? = nil, clock: any GatewayClock) {
        precondition(capacity > 0, "queue capacity must be positive")
        self.capacity = capacity
        self.budget = budget
        self.clock = clock
    }

    /// Adds an element of `bytes` bytes, blocking while the queue (or the shared byte budget)
    /// is full for at most `maxWait` seconds in all. Call from a thread that may block (the
    /// network thread), never from a task.
    func push(_ element: Element, bytes: Int = 0, maxWait: Double) -> PushOutcome {
        let reserved = budget.map { $0.reserve(bytes, maxWait: maxWait) } ?? (waited: 0, overLimit: false)
        condition.lock()
        var waited = reserved.waited
        var overCapacity = reserved.overLimit
        if buffer.count >= capacity && !closed {
            let start = clock.monotonicNow()
            let deadline = start + .seconds(max(0, maxWait - waited))
            while buffer.count >= capacity && !closed {
                if !condition.wait(until: deadline) {
                    overCapacity = buffer.count >= capacity
                    break
                }
            }
            waited += clock.secondsSince(start)
        }
        if closed {
            condition.unlock()
            if budget != nil { budget?.release(bytes) }
            return .closed
        }
        buffer.append(element)
        if budget != nil { bufferedBytes += bytes }
        let waiting = takeConsumer()
        condition.unlock()
        waiting?.resume(returning: takeAll())
        return overCapacity ? .acceptedOverCapacity(waited: waited) : .accepted(waited: waited)
    }

    /// Adds a control element without regard to capacity and without blocking (timer ticks).
    /// Returns false if the queue is closed.
    @discardableResult
    func pushControl(_ element: Element) -> Bool {
        condition.lock()
        guard !closed else {
            condition.unlock()
            return false
        }
        buffer.append(element)
        let waiting = takeConsumer()
        condition.unlock()
        waiting?.resume(returning: takeAll())
        return true
    }

    /// Waits for elements and returns all that are queued, or nil once the queue is closed and
    /// empty. Only one task may consume.
    func next() async -> [Element]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Element]?, Never>) in
            condition.lock()
            if !buffer.isEmpty {
                let elements = takeBuffer()
                let bytes = takeBufferedBytes()
                condition.broadcast()
                condition.unlock()
                budget?.release(bytes)
                continuation.resume(returning: elements)
            } else if closed {
                condition.unlock()
                continuation.resume(returning: nil)
            } else {
                precondition(consumer == nil, "HandoffQueue has a single consumer")
                consumer = continuation
                condition.unlock()
            }
        }
    }

    /// Refuses further pushes; the consumer still receives what is queued, then nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        let waiting = buffer.isEmpty ? takeConsumer() : nil
        condition.unlock()
        waiting?.resume(returning: nil)
    }

    /// Elements queued now.
    var depth: Int {
        condition.lock()
        defer { condition.unlock() }
        return buffer.count
    }

    /// Must be called with the lock held; a waiting consumer is handed everything queued.
    private func takeConsumer() -> CheckedContinuation<[Element]?, Never>? {
        guard let waiting = consumer else { return nil }
        consumer = nil
        return waiting
    }

    /// Takes everything queued (for a consumer being resumed outside the lock).
    private func takeAll() -> [Element]? {
        condition.lock()
        let elements = takeBuffer()
        let bytes = takeBufferedBytes()
        condition.broadcast()
        condition.unlock()
        budget?.release(bytes)
        return elements
    }

    /// Must be called with the lock held: the queued elements, leaving an empty buffer. Not
    /// `removeAll(keepingCapacity:)`: with the elements handed on, that allocates a new buffer of
    /// the old capacity (thousands of elements) per take, and a take is often one frame.
    private func takeBuffer() -> [Element] {
        defer { buffer = [] }
        return buffer
    }

    /// Must be called with the lock held.
    private func takeBufferedBytes() -> Int {
        defer { bufferedBytes = 0 }
        return bufferedBytes
    }
}
