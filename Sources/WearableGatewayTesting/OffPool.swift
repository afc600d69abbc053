import Foundation

/// Runs blocking work (a process start, polling, waiting for an exit) on a thread of its own:
/// async tests share Swift's cooperative pool (one thread per core), and blocking there would hold
/// up every other test's tasks.
func offPool<T: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        Thread { continuation.resume(returning: Result { () throws(Failure) -> T in try work() }) }.start()
    }
    return try result.get()
}
