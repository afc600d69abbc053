import Locking

/// The store did not answer within the deadline.
struct StoreDeadlineExceeded: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "the store did not answer within \(seconds) s" }
}

/// Runs `operation` and returns its result, or throws ``StoreDeadlineExceeded`` once `seconds`
/// passed on `clock` without one, or `CancellationError` as soon as the calling task is
/// cancelled (a shutdown must not wait for a store that does not answer). The operation goes on
/// in the background until it ends (a store write repeated after a timeout is de-duplicated by
/// the store); the caller does not wait for it.
func withStoreDeadline<Result: Sendable>(
    _ seconds: Double, clock: any GatewayClock, _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await storeCall(deadline: (seconds, clock), operation)
}

/// Runs `operation` and returns its result, however long it takes, unless the calling task is
/// cancelled first: then it throws `CancellationError` at once and the operation goes on in the
/// background. For periodic store work (pruning) that has no deadline of its own but must not
/// hold a shutdown up: a PostgreSQL driver call can wait for ever on a pool that was replaced.
func withCancellableStoreCall<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
    try await storeCall(deadline: nil, operation)
}

private func storeCall<Result: Sendable>(
    deadline: (seconds: Double, clock: any GatewayClock)?, _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let waiting = LockedState<CheckedContinuation<Result, any Error>?>(nil)
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            if Task.isCancelled {
                continuation.resume(throwing: CancellationError())
                return
            }
            waiting.withLock { $0 = continuation }
            let timer = deadline.map { deadline in
                Task {
                    try await deadline.clock.sleep(for: deadline.seconds)
                    waiting.withLock { $0.take() }?.resume(throwing: StoreDeadlineExceeded(seconds: deadline.seconds))
                }
            }
            Task {
                let result: Swift.Result<Result, any Error>
                do {
                    result = .success(try await operation())
                } catch {
                    result = .failure(error)
                }
                timer?.cancel()
                waiting.withLock { $0.take() }?.resume(with: result)
            }
        }
    } onCancel: {
        waiting.withLock { $0.take() }?.resume(throwing: CancellationError())
    }
}
