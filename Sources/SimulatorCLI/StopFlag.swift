import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Set by SIGINT/SIGTERM (or ``set()``) so a command ends cleanly (devices marked offline,
/// files completed, children stopped).
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var sources: [any DispatchSourceSignal] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isSet: Bool { lock.withLock { stopped } }

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
        let waiting = lock.withLock {
            stopped = true
            defer { waiters.removeAll() }
            return waiters
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
            let resumeNow = lock.withLock {
                if stopped { return true }
                waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
