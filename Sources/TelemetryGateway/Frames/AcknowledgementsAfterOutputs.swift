import CoreMetrics
import Locking
import Logging
import MQTTTransport

/// A clustered instance acknowledges a frame to the broker only once the frame's outputs are
/// published (recorded by the output ledger, acknowledged by the broker) or were recorded by
/// another holder: until then the broker keeps the frame in this instance's session, so a
/// stand-in that takes the session over after an adoption receives it (docs/scale-out.md,
/// *Acknowledged after publishing*).
///
/// The router opens a frame (by its journal sequence) when it journals one this instance holds;
/// its ``FrameRelease`` settles it. After each group it reads, the subscriber's network thread
/// waits here until every opened frame settled. It ends the connection without acknowledging
/// when a frame's outputs were fenced (this run lost the lease: the frame is its successor's) or
/// when they are not settled within ``bound`` (the store does not answer): the broker keeps
/// the frames for whoever resumes the session. A frame held for its device's SUBACK, a warming
/// partition's and one without a journal record are not waited for.
///
/// `@unchecked Sendable`: `state` is only touched holding `condition`.
final class AcknowledgementsAfterOutputs: AcknowledgementGate, @unchecked Sendable {
    private struct State {
        /// Journal sequences of frames opened on the current connection and not settled.
        var open: Set<UInt64> = []
        /// A frame opened on the current connection had an output fenced.
        var fenced = false
        var interrupted = false
    }

    /// The longest the network thread waits: half the keepalive, so the broker never takes the
    /// connection for dead meanwhile.
    let bound: Duration
    private let condition = MonotonicCondition()
    private var state = State()
    private let waited: FloatingPointCounter
    private let closedFenced: Counter
    private let closedTimedOut: Counter
    /// Whether every group is refused now: this run was adopted, so the session it may still
    /// hold (a reconnect that raced the stand-in's) is the stand-in's to be delivered again.
    private let refusing: @Sendable () -> Bool

    /// Waits at most half of `keepalive` (seconds).
    convenience init(keepalive: Int, factory: any MetricsFactory, refusing: @escaping @Sendable () -> Bool = { false }) {
        self.init(bound: .milliseconds(keepalive * 500), factory: factory, refusing: refusing)
    }

    init(bound: Duration, factory: any MetricsFactory, refusing: @escaping @Sendable () -> Bool = { false }) {
        self.bound = bound
        self.refusing = refusing
        waited = FloatingPointCounter(label: "gateway_cluster_acknowledgement_wait_seconds_total", factory: factory)
        closedFenced = Counter(label: "gateway_cluster_unacknowledged_closes_total", dimensions: [("reason", "fenced")], factory: factory)
        closedTimedOut = Counter(label: "gateway_cluster_unacknowledged_closes_total", dimensions: [("reason", "timeout")], factory: factory)
    }

    /// A frame journaled under `sequence` whose outputs this instance publishes (network thread).
    func opened(_ sequence: UInt64) {
        condition.withLock { _ = state.open.insert(sequence) }
    }

    /// The outputs of the frame journaled under `sequence` are published or withheld; `fenced`
    /// when one was withheld because this run no longer held its partition.
    func settled(_ sequence: UInt64, fenced: Bool) {
        condition.withLock {
            guard state.open.remove(sequence) != nil else { return }
            if fenced { state.fenced = true }
            if state.open.isEmpty || fenced { condition.broadcast() }
        }
    }

    /// The subscriber's connection ended: what was opened on it is the broker's to deliver again.
    func connectionEvent(_ event: MQTTClientEvent) {
        guard case .disconnected = event else { return }
        condition.withLock {
            state.open.removeAll()
            state.fenced = false
        }
    }

    func decide(groupReadAt: ContinuousClock.Instant, waitingAtMost slice: Duration) -> AcknowledgementDecision {
        if refusing() {
            closedFenced.increment()
            return .refuse
        }
        let started = ContinuousClock.now
        let bounded = groupReadAt + bound
        // The condition waits on the monotonic clock: the same deadline, as an offset from now.
        let until = SuspendingClock.now + (min(bounded, started + slice) - started)
        let (open, fenced, interrupted) = condition.withLock { () -> (Int, Bool, Bool) in
            while !state.interrupted && !state.fenced && !state.open.isEmpty {
                if !condition.wait(until: until) && SuspendingClock.now >= until { break }
            }
            return (state.open.count, state.fenced, state.interrupted)
        }
        let now = ContinuousClock.now
        let seconds = (now - started).inSeconds
        if seconds > 0 { waited.increment(by: seconds) }
        if interrupted { return .acknowledge }
        if fenced {
            closedFenced.increment()
            return .refuse
        }
        if open == 0 { return .acknowledge }
        if now >= bounded {
            closedTimedOut.increment()
            return .refuse
        }
        return .undecided
    }

    func interrupt() {
        condition.withLock {
            state.interrupted = true
            condition.broadcast()
        }
    }
}
