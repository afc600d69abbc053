/// Where a clustered instance records the outputs it is about to publish, fenced by its
/// partitions' leases: an output is published only once the ledger took it, which it does in one
/// statement that checks the lease of the output's partition (this run, the epoch the output is
/// stamped with) and keeps each output key once (docs/scale-out.md, *Fenced outputs*). So a holder
/// that lost a partition (a freeze, a cut, a hand-over it has not heard of yet) publishes nothing
/// more for it, and an output two holders derive from the same frame is published by one.
/// PostgreSQL implements it (`PostgresLeaseStore`).
public protocol OutputLedger: Sendable {
    /// Records those of `outputs` whose partition `member` holds under the output's epoch, each
    /// key once for ever (until pruned). A key already recorded under the same partition, epoch
    /// and ``OutputKey/queueEntry`` counts as recorded by this call: it is this run's own record
    /// from an earlier try of the same batch whose answer was lost (the statement committed, the
    /// reply never came), still this run's to publish; any other earlier record of the key is not.
    /// - Returns: which outputs were recorded now, and the partitions `member` holds with their
    ///   epochs among those the outputs name.
    func record(_ outputs: [OutputKey], by member: LeaseMember) async throws -> OutputAdmission

    /// Removes the records older than `seconds` by the store's clock; returns how many.
    func pruneOutputs(olderThan seconds: Double) async throws -> Int
}

/// One output as the ledger knows it: its topic and event id (together its key), and the
/// partition and epoch it is published under.
public struct OutputKey: Sendable, Hashable {
    /// The topic it is published on.
    public var topic: String
    /// The payload's `eventId`; empty for an output without one (fenced by the lease, never
    /// recorded: it cannot be told apart from a later one).
    public var eventID: String
    /// The ownership partition of its device.
    public var partition: Int
    /// The epoch it is stamped with (the lease it was derived under).
    public var epoch: Int64
    /// The number this run gave the batch entry the output belongs to. Epochs are never shared
    /// by two runs, so (partition, epoch, queue entry) names one entry of one run: a retry finds
    /// its own earlier record by it, and a later output with the same key (a frame delivered
    /// again) does not.
    public var queueEntry: Int64

    /// An output key.
    public init(topic: String, eventID: String, partition: Int, epoch: Int64, queueEntry: Int64 = 0) {
        self.topic = topic
        self.eventID = eventID
        self.partition = partition
        self.epoch = epoch
        self.queueEntry = queueEntry
    }
}

/// The ledger's answer for one batch (``OutputLedger/record(_:by:)``).
public struct OutputAdmission: Sendable, Equatable {
    /// The (topic, event id) pairs recorded by this call: each is published once, by this caller.
    public var recorded: Set<OutputIdentity>
    /// The partitions the caller holds now, with their epochs, among those the batch named.
    public var held: [Int: Int64]

    /// An answer.
    public init(recorded: Set<OutputIdentity>, held: [Int: Int64]) {
        self.recorded = recorded
        self.held = held
    }

    /// Whether `key` may be published: its lease is held under its epoch and, for an output with
    /// an event id, this call recorded it (not another holder, nor an earlier call).
    public func admits(_ key: OutputKey) -> Bool {
        guard held[key.partition] == key.epoch else { return false }
        return key.eventID.isEmpty || recorded.contains(OutputIdentity(topic: key.topic, eventID: key.eventID))
    }
}

/// An output's identity in the ledger: its topic and event id.
public struct OutputIdentity: Sendable, Hashable {
    public var topic: String
    public var eventID: String

    /// An identity.
    public init(topic: String, eventID: String) {
        self.topic = topic
        self.eventID = eventID
    }
}
