import Locking
import Ownership

/// What the broker received from the earlier run of this run's name, as the broker itself tells
/// it: every clustered run's session also subscribes its devices' output topics (the echo), so an
/// output the broker took from a run is queued in that run's session, and a stand-in that resumes
/// the session receives the echoes of what the dead run's publisher got to the broker, before the
/// stand-in's backlog mark (docs/scale-out.md, *Fenced outputs*: the broker's testimony).
///
/// The output ledger names the outputs an earlier run of the name recorded (perhaps never to
/// publish them: it died or froze between its record and the broker's receipt); once the mark
/// arrived, one that came back as an echo was received and one that did not was not, and is the
/// stand-in's to publish. Echoes are collected until the mark (bounded in bytes: past the bound
/// the testimony is incomplete, and every such output is withheld as before, counted).
final class BrokerTestimony: Sendable {
    /// What the testimony says of one output an earlier run recorded.
    enum Verdict: Equatable {
        /// The mark has not arrived: the testimony is not complete.
        case pending
        /// The broker received it: withheld.
        case received
        /// The broker never received it: published by this run.
        case neverReceived
        /// Unknown (too many echoes to keep, or the mark never came): withheld, counted.
        case unknown
    }

    private struct State {
        var echoed: Set<OutputIdentity> = []
        var bytes = 0
        var complete = false
        var overflowed = false
    }

    /// Bytes of echoed keys kept at most.
    static let maximumBytes = 16 << 20

    private let state = LockedState(State())

    /// An echo of an output arrived (a message through a device's output filter).
    func heard(topic: String, payload: [UInt8]) {
        guard let eventID = HistoryEventFields(scanning: payload).eventId, !eventID.isEmpty else { return }
        state.withLock { state in
            guard !state.complete, !state.overflowed else { return }
            let cost = topic.utf8.count + eventID.utf8.count + 64
            guard state.bytes + cost <= Self.maximumBytes else {
                state.overflowed = true
                state.echoed = []
                return
            }
            if state.echoed.insert(OutputIdentity(topic: topic, eventID: eventID)).inserted { state.bytes += cost }
        }
    }

    /// The backlog mark arrived: every echo of the earlier run's outputs came before it.
    /// `delivered` false: the mark never came (the stand-in stopped first); what was not echoed
    /// stays unknown.
    func complete(delivered: Bool) {
        state.withLock { state in
            state.complete = true
            if !delivered { state.overflowed = true }
        }
    }

    /// Whether the mark arrived (or the wait for it ended).
    var isComplete: Bool { state.withLock { $0.complete } }

    /// The verdict on an output an earlier run of the name recorded.
    func verdict(on identity: OutputIdentity) -> Verdict {
        state.withLock { state in
            guard state.complete else { return .pending }
            if state.echoed.contains(identity) { return .received }
            return state.overflowed ? .unknown : .neverReceived
        }
    }
}
