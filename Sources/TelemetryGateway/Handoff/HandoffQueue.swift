import Foundation

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
    private let condition = NSCondition()
    private var buffer: [Element] = []
    private var closed = false
    private var consumer: CheckedContinuation<[Element]?, Never>?

    /// Creates a queue holding at most `capacity` elements before producers block.
    init(capacity: Int) {
        precondition(capacity > 0, "queue capacity must be positive")
        self.capacity = capacity
        buffer.reserveCapacity(min(capacity, 4096))
    }

    /// Adds an element, blocking while the queue is full for at most `maxWait` seconds.
    /// Call from a thread that may block (the network thread), never from a task.
    func push(_ element: Element, maxWait: Double) -> PushOutcome {
        condition.lock()
        var waited = 0.0
        var overCapacity = false
        if buffer.count >= capacity && !closed {
            let start = Date()
            let deadline = start.addingTimeInterval(maxWait)
            while buffer.count >= capacity && !closed {
                if !condition.wait(until: deadline) {
                    overCapacity = buffer.count >= capacity
                    break
                }
            }
            waited = Date().timeIntervalSince(start)
        }
        if closed {
            condition.unlock()
            return .closed
        }
        buffer.append(element)
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
                let elements = buffer
                buffer.removeAll(keepingCapacity: true)
                condition.broadcast()
                condition.unlock()
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
        defer { condition.unlock() }
        let elements = buffer
        buffer.removeAll(keepingCapacity: true)
        condition.broadcast()
        return elements
    }
}
