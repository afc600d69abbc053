/// What an operator sees of the ownership (metrics, `/readyz`).
public struct OwnershipStatus: Sendable, Equatable {
    /// Partitions held.
    public var held: Int
    /// Partitions warming up.
    public var warming: Int
    /// Whether the last heartbeat that reached the store is older than the lease's time to live
    /// less the margin: the holder keeps publishing, but another instance may hold its
    /// partitions by now.
    public var pastDeadline: Bool
    /// Heartbeats that failed since the last that reached the store.
    public var failedHeartbeats: Int
    /// Whether the store refused the last heartbeat because another instance adopted this name:
    /// this run holds nothing until the adopter's stand-in has left.
    public var adopted: Bool
    /// Whether this instance withholds its renewals because its subscriber cannot reach the
    /// broker (it is to be adopted, so that a stand-in serves its devices).
    public var withholdingRenewals: Bool
    /// Whether this instance, holding nothing, stands aside because its subscriber cannot reach
    /// the broker (it heartbeats as draining: nothing is assigned to it).
    public var standingAside: Bool
    /// Whether it knows what it holds: a first heartbeat and its plan went through (the journal
    /// is replayed and the subscriber subscribes only then).
    public var ready: Bool
    /// Heartbeats sent so far, numbered from 1 in the order sent.
    public var heartbeatsSent: Int
    /// The number of the newest heartbeat the store answered by registering this run (0: none).
    public var registeredThrough: Int

    /// A status.
    public init(
        held: Int, warming: Int, pastDeadline: Bool, failedHeartbeats: Int, adopted: Bool = false, withholdingRenewals: Bool = false,
        standingAside: Bool = false, ready: Bool = false, heartbeatsSent: Int = 0, registeredThrough: Int = 0
    ) {
        self.held = held
        self.warming = warming
        self.pastDeadline = pastDeadline
        self.failedHeartbeats = failedHeartbeats
        self.adopted = adopted
        self.withholdingRenewals = withholdingRenewals
        self.standingAside = standingAside
        self.ready = ready
        self.heartbeatsSent = heartbeatsSent
        self.registeredThrough = registeredThrough
    }

    /// An ownership that needs no heartbeat (``SoleOwner``): ready and registered for ever.
    public static let sole = OwnershipStatus(held: 0, warming: 0, pastDeadline: false, failedHeartbeats: 0, ready: true, registeredThrough: .max)

    /// Whether this run may adopt a dead instance: not while its subscriber cannot reach the
    /// broker (withholding or standing aside), since the stand-in would not reach it either.
    public var mayAdopt: Bool { !withholdingRenewals && !standingAside }

    /// Whether this run's subscriber may take its broker session back after another client took
    /// it over: never while adopted (the stand-in keeps the session until it has left); not while
    /// past its deadline for want of the store, since the taker may be the stand-in of an
    /// adoption this run cannot learn of; but yes while it withholds its renewals because the
    /// broker was unreachable: reaching it again is what it waits for, and it reads its adoption
    /// from the store meanwhile (docs/scale-out.md).
    public var mayResumeSession: Bool { !adopted && (!pastDeadline || withholdingRenewals) }

    /// Whether this run's subscriber may connect again after its connection ended for any other
    /// reason (a broker restart, a network cut): unless adopted. Past its deadline it cannot know
    /// it was not, but if a stand-in holds its session the reconnect takes the session from it
    /// once, the stand-in takes it back, and that takeover makes this run hold
    /// (``mayResumeSession``); frames read meanwhile are not acknowledged, their outputs waiting
    /// for the store. Holding instead would leave the broker, after a restart that lost the
    /// sessions, nowhere to queue this run's devices' frames until the store is back.
    public var mayReconnect: Bool { !adopted }
}
