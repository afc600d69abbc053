import Locking

/// The calls of a store that stopped answering (a frozen server), for deadline tests: each
/// ``hang()`` counts itself and waits until its task is cancelled.
public final class NeverAnsweringCalls: Sendable {
    private let started = LockedState(0)

    /// No call yet.
    public init() {}

    /// How many calls began.
    public var count: Int { started.withLock { $0 } }

    /// Counts a call and waits until its task is cancelled, then throws `CancellationError`.
    public func hang<T>() async throws -> T {
        started.withLock { $0 += 1 }
        let never = AsyncStream<Never> { _ in }
        for await _ in never {}
        throw CancellationError()
    }
}
