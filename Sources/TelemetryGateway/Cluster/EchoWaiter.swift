import Foundation
import Locking
import MQTTTransport

/// Waits, with a deadline, for one of this instance's own announcements to come back from the
/// broker: the point where everything the broker had before it was delivered too.
final class EchoWaiter: Sendable {
    private struct State {
        var highest = 0
        var waiters: [UUID: (beat: Int, continuation: CheckedContinuation<Bool, Never>)] = [:]
    }

    private let state = LockedState(State())

    /// Records that announcement `beat` came back (announcements come back in order).
    func arrived(_ beat: Int) {
        let due = state.withLock { state in
            state.highest = max(state.highest, beat)
            let due = state.waiters.filter { $0.value.beat <= beat }
            for key in due.keys { state.waiters[key] = nil }
            return due.values.map(\.continuation)
        }
        due.forEach { $0.resume(returning: true) }
    }

    /// Waits until announcement `beat` (or a later one) came back; false after `timeout` seconds.
    func wait(for beat: Int, timeout: Double) async -> Bool {
        let id = UUID()
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let done = self.state.withLock { state -> Bool in
                        if state.highest >= beat { return true }
                        state.waiters[id] = (beat, continuation)
                        return false
                    }
                    if done { continuation.resume(returning: true) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                // Time is up (or cancelled): release the waiter with false.
                let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume(returning: false)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
