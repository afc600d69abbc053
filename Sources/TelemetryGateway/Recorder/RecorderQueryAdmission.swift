import TelemetryCore

/// Decides, on the network thread and without waiting, whether a recorder query is queued for
/// the answerer or refused at once; counts what is queued or running per requester and what
/// refusals still wait to be published. Pure state: the caller holds it under a lock and tells
/// it when a query finished and when a refusal went out.
struct RecorderQueryAdmission: Sendable, Equatable {
    /// What happens to a query.
    enum Verdict: Sendable, Equatable {
        /// Queued for the answerer; call ``finished(requester:)`` once it is answered.
        case admitted
        /// Refused with this error answer; call ``refusalSent()`` once it went out.
        case refused(RecorderQueryError.Code)
        /// Refused, and so many refusals already wait to be published that this one gets no
        /// answer at all (only a count): a flood cannot grow the refusal backlog without bound.
        case dropped
    }

    /// Queries one requester may have queued or running at once.
    let perRequester: Int
    /// Queries queued or running over all requesters.
    let capacity: Int
    /// The largest payload accepted, bytes.
    let maximumPayloadBytes: Int
    /// Refusals waiting to be published, at most.
    let refusalCapacity: Int

    /// Queries queued or running per requester (the key of an unnamed requester is "").
    private(set) var pending: [String: Int] = [:]
    /// Queries queued or running over all requesters.
    private(set) var pendingTotal = 0
    /// Refusals handed on and not yet published.
    private(set) var refusalsWaiting = 0

    /// Creates an empty admission with its limits (each at least 1).
    init(perRequester: Int, capacity: Int, maximumPayloadBytes: Int, refusalCapacity: Int) {
        self.perRequester = max(1, perRequester)
        self.capacity = max(1, capacity)
        self.maximumPayloadBytes = max(1, maximumPayloadBytes)
        self.refusalCapacity = max(1, refusalCapacity)
    }

    /// Admits or refuses a query of `requester` with a payload of `payloadBytes` bytes. The
    /// checks go from the request itself to the gateway's load: payload size, the requester's
    /// own queries, then the shared queue.
    mutating func admit(requester: String?, payloadBytes: Int) -> Verdict {
        let key = requester ?? ""
        let refusal: RecorderQueryError.Code
        if payloadBytes > maximumPayloadBytes {
            refusal = .payloadTooLarge
        } else if pending[key, default: 0] >= perRequester {
            refusal = .tooManyQueries
        } else if pendingTotal >= capacity {
            refusal = .busy
        } else {
            pending[key, default: 0] += 1
            pendingTotal += 1
            return .admitted
        }
        guard refusalsWaiting < refusalCapacity else { return .dropped }
        refusalsWaiting += 1
        return .refused(refusal)
    }

    /// An admitted query of `requester` was answered (or given up): its place is free.
    mutating func finished(requester: String?) {
        let key = requester ?? ""
        guard let count = pending[key], count > 0 else { return }
        pending[key] = count == 1 ? nil : count - 1
        pendingTotal -= 1
    }

    /// A refusal went out (or was given up).
    mutating func refusalSent() {
        refusalsWaiting = max(0, refusalsWaiting - 1)
    }
}
