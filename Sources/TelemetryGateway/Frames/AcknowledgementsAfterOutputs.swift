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
        /// When the publisher's connection to the broker was last lost.
        var brokerLostAt: ContinuousClock.Instant?
    }

    /// The longest the network thread waits: half the keepalive, so the broker never takes the
    /// connection for dead meanwhile.
    let bound: Duration
    private let condition = MonotonicCondition()
    private var state = State()
    private let waited: FloatingPointCounter
    private let closedFenced: Counter
    private let closedTimedOut: Counter
    private let closedBrokerLost: Counter
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
        closedBrokerLost = Counter(label: "gateway_cluster_unacknowledged_closes_total", dimensions: [("reason", "broker_lost")], factory: factory)
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

    /// The publisher's connection to the broker was lost (the same broker: it may have died). A
    /// group read before it is refused at once instead of waiting for outputs that cannot go out
    /// meanwhile: the subscriber's connection may be dead too without the subscriber seeing it.
    /// A dead broker's FIN waits behind the data it still had to send, and a subscriber waiting
    /// here reads nothing, so its receive window stays shut and `peerClosed` learns nothing
    /// until the bound (seen: 15 s after a broker restart while the store was away). Refused,
    /// the subscriber reconnects at once; the broker delivers the group again if it kept the
    /// session, and lost it anyway if it did not.
    func brokerLost() {
        condition.withLock {
            state.brokerLostAt = ContinuousClock.now
            condition.broadcast()
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
        let (open, fenced, interrupted, brokerLost) = condition.withLock { () -> (Int, Bool, Bool, Bool) in
            func lost() -> Bool { state.brokerLostAt.map { $0 >= groupReadAt } ?? false }
            while !state.interrupted && !state.fenced && !state.open.isEmpty && !lost() {
                if !condition.wait(until: until) && SuspendingClock.now >= until { break }
            }
            return (state.open.count, state.fenced, state.interrupted, lost())
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
        if brokerLost {
            closedBrokerLost.increment()
            return .refuse
        }
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
