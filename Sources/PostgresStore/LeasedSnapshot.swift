/// A device snapshot to write under its partition's lease (``PostgresLeaseStore/save(_:by:)``).
public struct LeasedSnapshot: Sendable, Equatable {
    /// The device id.
    public var device: String
    /// Its ownership partition.
    public var partition: Int
    /// The partition's epoch the snapshot was made under.
    public var epoch: Int64
    /// When the device was last seen (seconds since 1970), for retention.
    public var lastSeen: Double
    /// The snapshot as JSON.
    public var snapshot: String

    /// A snapshot under a lease.
    public init(device: String, partition: Int, epoch: Int64, lastSeen: Double, snapshot: String) {
        self.device = device
        self.partition = partition
        self.epoch = epoch
        self.lastSeen = lastSeen
        self.snapshot = snapshot
    }
}
