/// The instances one gateway instance knows of, from their `gateway/instances/{name}`
/// announcements, and who is live: a pure value (time arrives as arguments), unit-tested
/// without a broker.
///
/// An instance is live while its last announcement said `online` and is younger than the
/// expiry; this instance counts itself live only between announcing itself online and
/// announcing that it leaves (its own retained messages are not trusted: they may be a previous
/// run's).
struct MembershipTable: Sendable {
    /// This instance's name.
    let me: String
    /// Seconds without an announcement after which an instance counts as gone.
    let expiry: Double
    /// Whether this instance counts itself live.
    private(set) var selfLive = false
    /// The latest announcement of each other instance: whether it said online, and when it arrived.
    private var others: [String: (online: Bool, seenAt: Double)] = [:]

    init(me: String, expiry: Double) {
        self.me = me
        self.expiry = expiry
    }

    /// The live instances at `now`, sorted.
    func live(at now: Double) -> [String] {
        var names = others.filter { $0.value.online && now - $0.value.seenAt < expiry }.map(\.key)
        if selfLive { names.append(me) }
        return names.sorted()
    }

    /// Records an announcement of another instance (this instance's own are ignored).
    mutating func announce(_ instance: String, online: Bool, at now: Double) {
        guard instance != me else { return }
        others[instance] = (online, now)
    }

    /// Sets whether this instance counts itself live.
    mutating func setSelfLive(_ live: Bool) { selfLive = live }

    /// Forgets instances silent for more than ten expiry periods (their retained offline status
    /// may stay on the broker forever).
    mutating func prune(at now: Double) {
        others = others.filter { now - $0.value.seenAt < 10 * expiry }
    }
}
