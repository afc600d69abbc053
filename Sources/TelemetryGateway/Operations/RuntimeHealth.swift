import Locking
import MQTTTransport

/// What `/healthz` and `/readyz` report, fed by the running gateway.
///
/// - **Liveness** (`/healthz`): every loop that beats (each worker, the ticker, the metrics
///   sampler) did so within `stallTimeout`; the subscriber's network thread is not stuck in the
///   message handler longer than that (the handler is the one place our code can block it);
///   and a broker round-trip probe is not outstanding longer than that while the publisher is
///   connected (a stalled publisher network thread never completes it).
/// - **Readiness** (`/readyz`): both MQTT connections are up and every queue is below its limit.
///   The stores' write health is in its body (``HealthReport/StoreHealth``); only the shared
///   store's (`store.url`) decides it: while PostgreSQL fails, the instance is not ready.
///
/// Thread-safe: loops, network threads and HTTP handlers call it concurrently.
public final class RuntimeHealth: Sendable {
    private struct State {
        /// Loop → (last beat, its period): a loop is stalled when its beat is older than period + stallTimeout.
        var heartbeats: [String: (date: Double, period: Double)] = [:]
        var connected: [String: Bool] = ["subscriber": false, "publisher": false]
        var handlerEnteredAt: Double?
        var probeSentAt: Double?
        var queues: (@Sendable () -> [HealthReport.QueueLoad])?
        var stores: [String: HealthReport.StoreHealth] = [:]
        /// Stores whose failure makes the gateway unready (the shared store, `store.url`).
        var readinessStores: Set<String> = []
        /// The event history's writer, when the history is on.
        var history: (@Sendable () -> HealthReport.HistoryHealth)?
    }

    private let state = LockedState(State())
    private let stallTimeout: Double
    private let now: @Sendable () -> Double

    /// Creates the tracker.
    /// - Parameters:
    ///   - stallTimeout: seconds without a heartbeat (or inside the handler, or waiting for a
    ///     probe's acknowledgement) that make the process unhealthy (`http.stallTimeout`).
    ///   - now: a monotonic clock in seconds (the gateway's clock, see ``GatewayOperations``;
    ///     tests pass their own).
    public init(stallTimeout: Double, now: @escaping @Sendable () -> Double) {
        self.stallTimeout = stallTimeout
        self.now = now
    }

    /// A loop's sign of life; call it on every iteration.
    /// - Parameters:
    ///   - loop: the loop's name, as `/healthz` reports it.
    ///   - period: how often the loop beats when all is well, seconds (added to the timeout).
    public func beat(_ loop: String, every period: Double = 0) {
        let date = now()
        state.withLock { $0.heartbeats[loop] = (date, period) }
    }

    /// Forgets a loop that ended on purpose (shutdown), so it is not reported as stalled.
    public func retire(_ loop: String) {
        _ = state.withLock { $0.heartbeats.removeValue(forKey: loop) }
    }

    /// Tracks whether `connection` ("subscriber" or "publisher") is up.
    public func record(_ event: MQTTClientEvent, connection: String) {
        let up: Bool? =
            switch event {
            case .connected: true
            case .disconnected, .refused, .connectFailed, .sessionTakenOver: false
            case .connecting, .subscriptionFailed, .subscribed, .reconnectHeld: nil
            }
        guard let up else { return }
        state.withLock { $0.connected[connection] = up }
    }

    /// The subscriber's network thread entered the message handler.
    public func handlerEntered() {
        let date = now()
        state.withLock { $0.handlerEnteredAt = date }
    }

    /// The subscriber's network thread left the message handler.
    public func handlerLeft() {
        state.withLock { $0.handlerEnteredAt = nil }
    }

    /// A round-trip probe was sent (nil: it was acknowledged or abandoned).
    func probe(sentAt date: Double?) {
        state.withLock { $0.probeSentAt = date }
    }

    /// The monotonic time the tracker uses, seconds.
    var currentTime: Double { now() }

    /// Sets where the queue loads come from (the worker and query queues).
    public func watchQueues(_ loads: @escaping @Sendable () -> [HealthReport.QueueLoad]) {
        state.withLock { $0.queues = loads }
    }

    /// Lets readiness describe the event history's writer (never decides it).
    func watchHistory(_ health: @escaping @Sendable () -> HealthReport.HistoryHealth) {
        state.withLock { $0.history = health }
    }

    /// Records the outcome of a store's write (or open).
    /// - Parameters:
    ///   - store: the store's configuration key, e.g. `state.path`.
    ///   - error: why the write failed; nil when it succeeded.
    ///   - decidesReadiness: whether a failure makes `/readyz` fail (the shared store, whose
    ///     writes are retried and held in the journal until they succeed).
    public func recordStore(_ store: String, error: String?, decidesReadiness: Bool = false) {
        state.withLock { state in
            if decidesReadiness { state.readinessStores.insert(store) }
            var health = state.stores[store] ?? HealthReport.StoreHealth(name: store, failing: false, failures: 0, lastError: nil)
            health.failing = error != nil
            if let error {
                health.failures += 1
                health.lastError = error
            }
            state.stores[store] = health
        }
    }

    /// `/healthz`: the loops run.
    public func liveness() -> HealthReport {
        let date = now()
        let snapshot = state.withLock { $0 }
        var problems: [String] = []
        for (loop, last) in snapshot.heartbeats.sorted(by: { $0.key < $1.key }) where date - last.date > stallTimeout + last.period {
            problems.append("\(loop) has not run for \(Int(date - last.date)) s (http.stallTimeout \(stallTimeout) s)")
        }
        if let entered = snapshot.handlerEnteredAt, date - entered > stallTimeout {
            problems.append("the subscriber network thread has been stuck in the message handler for \(Int(date - entered)) s")
        }
        if let sent = snapshot.probeSentAt, snapshot.connected["publisher"] == true, date - sent > stallTimeout {
            problems.append("the publisher has not completed a broker round trip for \(Int(date - sent)) s while connected")
        }
        return HealthReport(problems: problems)
    }

    /// `/readyz`: both connections up and every queue below its limit.
    public func readiness() -> HealthReport {
        let snapshot = state.withLock { $0 }
        var problems: [String] = []
        for (name, up) in snapshot.connected.sorted(by: { $0.key < $1.key }) where !up {
            problems.append("the \(name) connection to the broker is down")
        }
        let queues = snapshot.queues?() ?? []
        for queue in queues where queue.depth >= queue.capacity {
            problems.append("queue \(queue.name) is full (\(queue.depth) of \(queue.capacity))")
        }
        let stores = snapshot.stores.values.sorted { $0.name < $1.name }
        for store in stores where store.failing && snapshot.readinessStores.contains(store.name) {
            problems.append("the store \(store.name) is failing: \(store.lastError ?? "unknown error")")
        }
        return HealthReport(problems: problems, connections: snapshot.connected, queues: queues, stores: stores, history: snapshot.history?())
    }
}
