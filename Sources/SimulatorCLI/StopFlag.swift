import Dispatch
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// Set by SIGINT/SIGTERM (or ``set()``) so a command ends cleanly (devices marked offline,
/// files completed, children stopped).
final class StopFlag: @unchecked Sendable {
    /// Whether the flag is set, and the waits to resume when it is.
    private let state = LockedState((stopped: false, waiters: [CheckedContinuation<Void, Never>]()))
    /// Kept alive for the process's lifetime; only ``installSignalHandlers()`` touches them.
    private var sources: [any DispatchSourceSignal] = []

    var isSet: Bool { state.withLock { $0.stopped } }

    func installSignalHandlers() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber)
            source.setEventHandler { [self] in set() }
            source.resume()
            sources.append(source)
        }
    }

    /// Sets the flag and wakes every ``wait(upTo:)``.
    func set() {
        let waiting = state.withLock { state in
            state.stopped = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Returns once the flag is set, or after `seconds` (nil: no limit).
    func wait(upTo seconds: Double?) async {
        if let seconds {
            let timer = Task { [self] in
                try await Task.sleep(for: .seconds(seconds))
                set()
            }
            defer { timer.cancel() }
            await waitUntilSet()
        } else {
            await waitUntilSet()
        }
    }

    private func waitUntilSet() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.stopped { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
