import Locking

/// The store did not answer within the deadline.
struct StoreDeadlineExceeded: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "the store did not answer within \(seconds) s" }
}

/// Runs `operation` and returns its result, or throws ``StoreDeadlineExceeded`` once `seconds`
/// passed on `clock` without one. The operation goes on in the background until it ends (a
/// store write repeated after a timeout is de-duplicated by the store); the caller does not
/// wait for it.
func withStoreDeadline<Result: Sendable>(
    _ seconds: Double, clock: any GatewayClock, _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let waiting = LockedState<CheckedContinuation<Result, any Error>?>(nil)
    return try await withCheckedThrowingContinuation { continuation in
        waiting.withLock { $0 = continuation }
        let timer = Task {
            try await clock.sleep(for: seconds)
            waiting.withLock { $0.take() }?.resume(throwing: StoreDeadlineExceeded(seconds: seconds))
        }
        Task {
            let result: Swift.Result<Result, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            timer.cancel()
            waiting.withLock { $0.take() }?.resume(with: result)
        }
    }
}
