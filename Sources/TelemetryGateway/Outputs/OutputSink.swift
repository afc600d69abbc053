import Ownership
import TelemetryCore

/// Where a shard worker hands what it derived. A single gateway publishes at once
/// (``OutboundPublisher``); a clustered instance publishes only what its partitions' leases let
/// it record first (``FencedOutputs``), an adapter at the edge: the worker does not know which.
protocol OutputSink: Sendable {
    /// Publishes `messages` in order; each one acknowledged by the broker, or held back because
    /// another holder publishes it, counts one part of `countdown`. One never handed over does
    /// not, so its frame stays in the journal.
    func publish(_ messages: [OutboundMessage], countdown: ReleaseCountdown?) async

    /// The outputs of a frame of a partition warming up here, which nobody publishes from this
    /// instance yet: clustered, kept (bounded) so that once the partition is handed over, those
    /// its old holder did not publish are published from here.
    func warmed(_ messages: [OutboundMessage])

    /// A partition's role changed here (a worker reports each change it processes; again from
    /// every shard, so this must be idempotent).
    func ownershipChanged(_ change: OwnershipChange)
}

extension OutboundPublisher: OutputSink {
    func warmed(_ messages: [OutboundMessage]) {}
    func ownershipChanged(_ change: OwnershipChange) {}
}
