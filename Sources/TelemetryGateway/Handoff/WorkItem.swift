import TelemetryCore

/// What a shard worker receives: frames from the subscriber, and clock ticks that let the pure
/// processor close error-aggregation windows (it never reads a clock itself).
enum WorkItem: Sendable {
    /// A frame (or a reset command) to check and process, live or replayed from the journal,
    /// as the router decided it.
    case frame(RoutedFrame)
    /// A replayed recorder upload of a device whose partition another instance holds by now:
    /// history, not device state, so it is stored all the same and nothing is published.
    case replayedUpload(RoutedFrame)
    /// The current time, Unix epoch seconds (for the core's timers, which compare devices'
    /// dates), and the same instant on the monotonic clock (for the worker's own schedules,
    /// which no step of the wall clock may stretch or cut short).
    case tick(Double, SuspendingClock.Instant)
    /// A reloaded registry and capability table, effective at the given Unix time (SIGHUP).
    case policy(AccessPolicy, Double)
    /// Clustered: a partition changed hands (``OwnershipService``), with the devices of it that
    /// this shard has stored state for. In order with the frames.
    case partitionMoved(PartitionMove)
    /// Clustered: a frame of a device whose partition is warming up here, processed for its
    /// state only (nothing published, no journal record).
    case shadow(RoutedFrame)
    /// The journal passed its high-water mark with records of this shard at its tail: write the
    /// device snapshots now, so the records held for them go (``JournalPressure``).
    case relieveJournal

    /// Whether it carries a received frame (left in the journal when the worker stops before it).
    var isFrame: Bool {
        switch self {
        case .frame, .replayedUpload: true
        default: false
        }
    }
}
