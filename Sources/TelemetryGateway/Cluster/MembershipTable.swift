/// The instances one gateway instance knows of, from their `gateway/instances/{name}`
/// announcements, and who is live: a pure value (time arrives as arguments), unit-tested
/// without a broker.
///
/// An instance is live while its last announcement said `online` or `draining` and is younger
/// than the expiry; it is a target (should own devices) only while `online`. This instance
/// counts itself from its own state (its retained messages may be a previous run's).
struct MembershipTable: Sendable {
    /// What an instance said it is doing.
    enum Phase: String, Sendable {
        /// Owns devices.
        case online
        /// Keeps its devices until their next owners have warmed up, then leaves.
        case draining
        /// Reads the membership (not processing yet) or left.
        case idle
    }

    /// This instance's name.
    let me: String
    /// Seconds without an announcement after which an instance counts as gone.
    let expiry: Double
    /// This instance's own phase.
    private(set) var selfPhase = Phase.idle
    /// The latest announcement of each other instance and when it arrived.
    private var others: [String: (phase: Phase, seenAt: Double)] = [:]

    init(me: String, expiry: Double) {
        self.me = me
        self.expiry = expiry
    }

    /// Instances processing at `now` (online or draining).
    func live(at now: Double) -> Set<String> { instances(at: now) { $0 != .idle } }

    /// Instances that should own devices at `now` (online).
    func target(at now: Double) -> Set<String> { instances(at: now) { $0 == .online } }

    private func instances(at now: Double, _ include: (Phase) -> Bool) -> Set<String> {
        var names = Set(others.filter { include($0.value.phase) && now - $0.value.seenAt < expiry }.keys)
        if include(selfPhase) { names.insert(me) }
        return names
    }

    /// Records an announcement of another instance (this instance's own are ignored).
    mutating func announce(_ instance: String, _ phase: Phase, at now: Double) {
        guard instance != me else { return }
        others[instance] = (phase, now)
    }

    /// Sets this instance's own phase.
    mutating func setSelf(_ phase: Phase) { selfPhase = phase }

    /// Forgets instances silent for more than ten expiry periods (their retained offline status
    /// may stay on the broker forever).
    mutating func prune(at now: Double) {
        others = others.filter { now - $0.value.seenAt < 10 * expiry }
    }
}
