/// The store's ownership state as one statement read it (``LeaseStoring/view()``).
public struct LeaseView: Sendable, Equatable {
    /// One partition's lease.
    public struct Lease: Sendable, Equatable {
        /// The partition.
        public var partition: Int
        /// Its holder's name; nil when nobody ever held it.
        public var owner: String?
        /// Its holder's incarnation.
        public var incarnation: String?
        /// The epoch: grows at every change of holder.
        public var epoch: Int64
        /// Whether the lease ran out by the store's clock.
        public var expired: Bool
        /// The instance it is offered to (a hand-over in progress), if any.
        public var offeredTo: String?
        /// Whether its holder gave it up (a graceful stop): expired, and nobody will renew it.
        public var released: Bool

        /// A lease.
        public init(partition: Int, owner: String?, incarnation: String?, epoch: Int64, expired: Bool, offeredTo: String? = nil, released: Bool = false) {
            self.partition = partition
            self.owner = owner
            self.incarnation = incarnation
            self.epoch = epoch
            self.expired = expired
            self.offeredTo = offeredTo
            self.released = released
        }
    }

    /// Live instances (their row has not expired by the store's clock): name → draining.
    public var instances: [String: Bool]
    /// Every partition's lease, by partition.
    public var leases: [Int: Lease]

    /// A view.
    public init(instances: [String: Bool], leases: [Int: Lease]) {
        self.instances = instances
        self.leases = leases
    }

    /// The instances partitions are assigned to: the live ones not draining.
    public var assignable: [String] { instances.filter { !$0.value }.map(\.key) }
}
