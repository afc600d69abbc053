/// The subscriptions a client was asked for, and what to send when, as a pure state machine:
/// every filter again on a connection where the broker kept no session, on one where it kept
/// the session only what changed while disconnected (``resume()``), a filter the broker
/// refused again after ``retryDelay`` (so an ACL fixed by the operator takes effect without a
/// restart), and the SUBSCRIBEs still awaiting their SUBACK.
///
/// Filters may come and go (``remove(_:connected:)``): the gateway's partitioned mode holds one
/// filter per owned device, so the bookkeeping is by filter (no scan per request) and a resend
/// is cut into SUBSCRIBEs of at most ``batchLimit`` filters.
///
/// It holds no lock and does no I/O: ``ClientCore`` mutates it under its own lock, sends what it
/// returns and resumes the returned continuations after unlocking.
struct SubscriptionKeeper {
    typealias Completion = CheckedContinuation<Void, any Error>

    /// Filters per SUBSCRIBE when many go out at once (a reconnect of an instance owning many
    /// devices): about 40 bytes each, so a packet stays far below brokers' size limits.
    static let batchLimit = 500

    /// A filter, the QoS it was asked for and its MQTT 5 subscription options.
    struct Subscription: Equatable {
        var filter: String
        var qos: MQTTQoS
        var options = SubscriptionOptions()
    }

    /// One SUBSCRIBE to send: filters sharing a QoS and subscription options.
    struct Request: Equatable {
        var filters: [String]
        var qos: MQTTQoS
        var options = SubscriptionOptions()
    }

    /// What a SUBACK settled.
    struct Acknowledgement {
        /// The caller of `subscribe` waiting for this SUBACK (nil for a resend or a request).
        var completion: Completion?
        /// The filters the broker granted, in the order sent.
        var granted: [String]
        /// The filters the broker refused, with its reason codes, in the order sent.
        var refused: [(filter: String, reasonCode: Int32)]
    }

    /// How long a refused filter waits before it is sent again.
    let retryDelay: Duration
    /// Every filter asked for and not removed, with the order it was first asked in.
    private var held: [String: (subscription: Subscription, order: Int)] = [:]
    private var nextOrder = 0
    /// Filters the broker refused, sent again at ``retryAt``.
    private(set) var refused: [Subscription] = []
    private(set) var retryAt: ContinuousClock.Instant?
    /// SUBSCRIBEs sent and not yet acknowledged, by message id.
    private var awaiting: [Int32: (filters: [String], completion: Completion?)] = [:]
    /// Held filters a kept session may lack: asked for while disconnected, or sent in a
    /// SUBSCRIBE whose connection ended before its SUBACK.
    private var unsent: Set<String> = []
    /// Filters given up while disconnected, which a kept session may still hold.
    private var removedWhileDisconnected: Set<String> = []

    init(retryDelay: Duration) {
        self.retryDelay = retryDelay
    }

    /// Every filter asked for and not removed, in the order first asked.
    var subscriptions: [Subscription] { held.values.sorted { $0.order < $1.order }.map(\.subscription) }

    /// How many filters are held.
    var count: Int { held.count }

    /// How many SUBSCRIBEs await their SUBACK.
    var pending: Int { awaiting.count }

    /// The owner asks for `filters`: they are remembered (and sent on every connection without a
    /// session). Returns whether to send them now, which only a live connection can take.
    mutating func request(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions = .init(), connected: Bool) -> Bool {
        for filter in filters where held[filter] == nil {
            held[filter] = (Subscription(filter: filter, qos: qos, options: options), nextOrder)
            nextOrder += 1
            removedWhileDisconnected.remove(filter)
            if !connected { unsent.insert(filter) }
        }
        return connected
    }

    /// The owner no longer wants `filters`: they are forgotten (not re-sent, not retried).
    /// Returns those that were held, to UNSUBSCRIBE now if `connected` (without a connection the
    /// broker keeps no session of a clean client, so there is nothing to undo).
    mutating func remove(_ filters: [String], connected: Bool) -> [String] {
        let removed = filters.filter { held.removeValue(forKey: $0) != nil }
        if !removed.isEmpty {
            let gone = Set(removed)
            refused.removeAll { gone.contains($0.filter) }
            if refused.isEmpty { retryAt = nil }
            unsent.subtract(gone)
            if !connected { removedWhileDisconnected.formUnion(gone) }
        }
        return connected ? removed : []
    }

    /// A SUBSCRIBE for `filters` went out as message id `mid`.
    mutating func sent(mid: Int32, filters: [String], completion: Completion?) {
        awaiting[mid] = (filters, completion)
    }

    /// The broker kept no session: every filter, grouped by QoS and options, in batches.
    /// Refusals waiting for their retry are part of it, so they are not sent a second time.
    mutating func resendAll() -> [Request] {
        refused.removeAll()
        retryAt = nil
        unsent.removeAll()
        removedWhileDisconnected.removeAll()
        return Self.grouped(subscriptions)
    }

    /// The broker kept the session, and with it the subscriptions it had acknowledged: what
    /// changed while disconnected is sent, the filters asked for meanwhile (or whose SUBACK the
    /// connection's end cut off) and the UNSUBSCRIBEs of those given up meanwhile.
    mutating func resume() -> (subscribe: [Request], unsubscribe: [String]) {
        defer {
            unsent.removeAll()
            removedWhileDisconnected.removeAll()
        }
        let missing = subscriptions.filter { unsent.contains($0.filter) }
        return (Self.grouped(missing), removedWhileDisconnected.sorted())
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
    /// Refused filters still held are scheduled for a retry ``retryDelay`` after `now`. Returns
    /// nil for an id not awaited (one whose connection ended before).
    mutating func acknowledged(mid: Int32, granted: [Int32], now: ContinuousClock.Instant) -> Acknowledgement? {
        guard let entry = awaiting.removeValue(forKey: mid) else { return nil }
        let refusals = zip(entry.filters, granted).filter { $0.1 >= 0x80 }.map { (filter: $0.0, reasonCode: $0.1) }
        let grantedFilters = zip(entry.filters, granted).filter { $0.1 < 0x80 }.map(\.0)
        var retried = false
        for (filter, _) in refusals where !refused.contains(where: { $0.filter == filter }) {
            guard let subscription = held[filter]?.subscription else { continue }  // removed meanwhile
            refused.append(subscription)
            retried = true
        }
        if retried { retryAt = now + retryDelay }
        return Acknowledgement(completion: entry.completion, granted: grantedFilters, refused: refusals)
    }

    /// The connection ended: no SUBACK will come for what was awaited. Returns the callers to
    /// fail.
    mutating func connectionEnded() -> [Completion] {
        defer { awaiting.removeAll() }
        for (filters, _) in awaiting.values { unsent.formUnion(filters.filter { held[$0] != nil }) }
        return awaiting.values.compactMap(\.completion)
    }

    /// Filters grouped into requests per QoS and options (a SUBSCRIBE carries one of each for
    /// all its filters), at most ``batchLimit`` filters each.
    private static func grouped(_ subscriptions: [Subscription]) -> [Request] {
        var requests: [Request] = []
        for qos in MQTTQoS.allCases {
            let ofQoS = subscriptions.filter { $0.qos == qos }
            var optionSets: [SubscriptionOptions] = []
            for subscription in ofQoS where !optionSets.contains(subscription.options) { optionSets.append(subscription.options) }
            for options in optionSets {
                let filters = ofQoS.filter { $0.options == options }.map(\.filter)
                for start in stride(from: 0, to: filters.count, by: batchLimit) {
                    requests.append(Request(filters: Array(filters[start..<min(start + batchLimit, filters.count)]), qos: qos, options: options))
                }
            }
        }
        return requests
    }
}
