import Locking
import MQTTTransport

/// The publish budget of recorder answers: at most `limit` answer messages handed to the shared
/// publisher connection and not yet acknowledged. The connection's own in-flight slots
/// (`mqtt.maxInflightPublishes`) are shared with every device event; without this bound a burst
/// of large answers fills them and device events queue behind megabytes of samples.
final class RecorderAnswerBudget: Sendable {
    private struct State {
        var free: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    /// Answer publishes in flight at most.
    let limit: Int
    private let state: LockedState<State>

    init(limit: Int) {
        self.limit = max(1, limit)
        state = LockedState(State(free: max(1, limit)))
    }

    /// Answer publishes handed over and not yet acknowledged.
    var inFlight: Int { limit - state.withLock { $0.free } }

    /// Tasks waiting for a place.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Takes a place, waiting (first come, first served) while all are taken.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it waits (an
    ///   answer in progress at the drain deadline stops at its next message).
    func acquire() async throws {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            if state.free > 0 {
                state.free -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    // A place freed since the first look is taken at once.
                    if state.free > 0 {
                        state.free -= 1
                        return .success(())
                    }
                    // The cancellation handler ran before we queued: it found nothing to remove.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Hands `message` to `client` once a place is free; the place is given back when the broker
    /// acknowledges or refuses it, or at once when the client does not take it.
    /// - Throws: what `client.send` throws, or `.shutdown` when the task was cancelled waiting.
    func send(_ message: MQTTMessage, on client: any OutboundConnection) async throws {
        do {
            try await acquire()
        } catch {
            throw MQTTTransportError(.shutdown, "cancelled while waiting for the recorder answers' publish budget")
        }
        do {
            try await client.send(message) { _ in self.release() }
        } catch {
            release()
            throw error
        }
    }

    /// Gives a place back (the broker acknowledged or refused the publish, or it was never
    /// handed over); passes it to the first waiter. Never blocks: called on the network thread.
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.free = min(limit, state.free + 1)
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        waiter?.resume()
    }
}
