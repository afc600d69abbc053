/// The subscriptions a client was asked for, and what to send when, as a pure state machine:
/// every filter again on a connection where the broker kept no session, a filter the broker
/// refused again after ``retryDelay`` (so an ACL fixed by the operator takes effect without a
/// restart), and the SUBSCRIBEs still awaiting their SUBACK.
///
/// It holds no lock and does no I/O: ``ClientCore`` mutates it under its own lock, sends what it
/// returns and resumes the returned continuations after unlocking.
struct SubscriptionKeeper {
    typealias Completion = CheckedContinuation<Void, any Error>

    /// A filter and the QoS it was asked for.
    struct Subscription: Equatable {
        var filter: String
        var qos: MQTTQoS
    }

    /// One SUBSCRIBE to send: filters sharing a QoS.
    struct Request: Equatable {
        var filters: [String]
        var qos: MQTTQoS
    }

    /// What a SUBACK settled.
    struct Acknowledgement {
        /// The caller of `subscribe` waiting for this SUBACK (nil for a resend).
        var completion: Completion?
        /// The filters the broker refused, with its reason codes, in the order sent.
        var refused: [(filter: String, reasonCode: Int32)]
    }

    /// How long a refused filter waits before it is sent again.
    let retryDelay: Duration
    /// Every filter asked for, in the order first asked.
    private(set) var subscriptions: [Subscription] = []
    /// Filters the broker refused, sent again at ``retryAt``.
    private(set) var refused: [Subscription] = []
    private(set) var retryAt: ContinuousClock.Instant?
    /// SUBSCRIBEs sent and not yet acknowledged, by message id.
    private var awaiting: [Int32: (filters: [String], completion: Completion?)] = [:]

    init(retryDelay: Duration) {
        self.retryDelay = retryDelay
    }

    /// The owner asks for `filters`: they are remembered (and sent on every connection without a
    /// session). Returns whether to send them now, which only a live connection can take.
    mutating func request(_ filters: [String], qos: MQTTQoS, connected: Bool) -> Bool {
        for filter in filters where !subscriptions.contains(where: { $0.filter == filter }) {
            subscriptions.append(Subscription(filter: filter, qos: qos))
        }
        return connected
    }

    /// A SUBSCRIBE for `filters` went out as message id `mid`.
    mutating func sent(mid: Int32, filters: [String], completion: Completion?) {
        awaiting[mid] = (filters, completion)
    }

    /// The broker kept no session: every filter, grouped by QoS. Refusals waiting for their
    /// retry are part of it, so they are not sent a second time.
    mutating func resendAll() -> [Request] {
        refused.removeAll()
        retryAt = nil
        return Self.grouped(subscriptions)
    }

    /// The refused filters to send again at `now`: none before their retry time, none without
    /// a connection (they wait for the next one).
    mutating func due(now: ContinuousClock.Instant, connected: Bool) -> [Request] {
        guard connected, let retryAt, now >= retryAt else { return [] }
        defer {
            refused.removeAll()
            self.retryAt = nil
        }
        return Self.grouped(refused)
    }

    /// The SUBACK for `mid` arrived with one reason code per filter (0x80 and above: refused).
    /// Refused filters are scheduled for a retry ``retryDelay`` after `now`. Returns nil for an
    /// id not awaited (one whose connection ended before).
    mutating func acknowledged(mid: Int32, granted: [Int32], now: ContinuousClock.Instant) -> Acknowledgement? {
        guard let entry = awaiting.removeValue(forKey: mid) else { return nil }
        let refusals = zip(entry.filters, granted).filter { $0.1 >= 0x80 }.map { (filter: $0.0, reasonCode: $0.1) }
        if !refusals.isEmpty {
            for (filter, _) in refusals where !refused.contains(where: { $0.filter == filter }) {
                let qos = subscriptions.first { $0.filter == filter }?.qos ?? .atLeastOnce
                refused.append(Subscription(filter: filter, qos: qos))
            }
            retryAt = now + retryDelay
        }
        return Acknowledgement(completion: entry.completion, refused: refusals)
    }

    /// The connection ended: no SUBACK will come for what was awaited. Returns the callers to
    /// fail.
    mutating func connectionEnded() -> [Completion] {
        defer { awaiting.removeAll() }
        return awaiting.values.compactMap(\.completion)
    }

    /// Filters grouped into one request per QoS (a SUBSCRIBE carries one QoS for all).
    private static func grouped(_ subscriptions: [Subscription]) -> [Request] {
        MQTTQoS.allCases.compactMap { qos in
            let filters = subscriptions.filter { $0.qos == qos }.map(\.filter)
            return filters.isEmpty ? nil : Request(filters: filters, qos: qos)
        }
    }
}
