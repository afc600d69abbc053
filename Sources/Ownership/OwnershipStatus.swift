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

    /// A status.
    public init(held: Int, warming: Int, pastDeadline: Bool, failedHeartbeats: Int) {
        self.held = held
        self.warming = warming
        self.pastDeadline = pastDeadline
        self.failedHeartbeats = failedHeartbeats
    }
}
