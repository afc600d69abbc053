import TelemetryCore

/// Where a shard worker hands what it derived. A single gateway publishes at once
/// (``OutboundPublisher``); a clustered instance publishes only what its partitions' leases let
/// it record first (``FencedOutputs``), an adapter at the edge: the worker does not know which.
protocol OutputSink: Sendable {
    /// Publishes `messages` in order, as `publication` lets this instance (the only place the
    /// role a frame was routed under is applied); each one acknowledged by the broker, or held
    /// back because another holder publishes it, counts one part of `countdown`. One never
    /// handed over does not, so its frame stays in the journal.
    func publish(_ messages: [OutboundMessage], as publication: Publication, countdown: ReleaseCountdown?) async

    /// The outputs of a frame of a partition warming up here, which nobody publishes from this
    /// instance yet: clustered, their retained state is kept and they are kept (bounded) so that
    /// once the partition is handed over, those its old holder did not publish are published
    /// from here.
    func warmed(_ messages: [OutboundMessage])

    /// A partition changed hands here (a worker reports each move it processes; again from
    /// every shard, so this must be idempotent).
    func partitionMoved(_ move: PartitionMove)
}

/// A single gateway publishes everything at once: it owns every device.
extension OutboundPublisher: OutputSink {
    func publish(_ messages: [OutboundMessage], as publication: Publication, countdown: ReleaseCountdown?) async {
        await publish(messages, countdown: countdown)
    }
    func warmed(_ messages: [OutboundMessage]) {}
    func partitionMoved(_ move: PartitionMove) {}
}
