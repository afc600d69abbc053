import GatewayJournal
import Ownership
import TelemetryCore

/// What a shard worker receives: frames from the subscriber, and clock ticks that let the pure
/// processor close error-aggregation windows (it never reads a clock itself).
enum WorkItem: Sendable {
    /// A frame to check and process; the ticket (nil when the journal is off or was full)
    /// releases its journal record once everything it produced is acknowledged. Its outputs are
    /// published by its device's role when it arrived (``OwnershipPort/visible(_:receivedAs:)``).
    case frame(InboundFrame, JournalTicket?, receivedAs: DeviceRole)
    /// A journal record of an earlier run, replayed at the start: processed like a frame.
    case replayed(InboundFrame, JournalTicket)
    /// A replayed recorder upload of a device whose partition another instance holds by now:
    /// history, not device state, so it is stored all the same and nothing is published.
    case replayedUpload(InboundFrame, JournalTicket)
    /// The current time, Unix epoch seconds (for the core's timers, which compare devices'
    /// dates), and the same instant on the monotonic clock (for the worker's own schedules,
    /// which no step of the wall clock may stretch or cut short).
    case tick(Double, SuspendingClock.Instant)
    /// A head-pose reset command for a device, in order with its frames.
    case resetPose(DeviceID, receivedAt: Double, retained: Bool, JournalTicket?)
    /// A reloaded registry and capability table, effective at the given Unix time (SIGHUP).
    case policy(AccessPolicy, Double)
    /// Clustered: a partition changed hands (``OwnershipService``), with the devices of it that
    /// this shard has stored state for: gained or warming, they are restored at their first
    /// frame; lost, every device of the partition is let go. Gained, with the retained messages
    /// their snapshots carry (announced again if the broker loses its own). In order with the frames.
    case ownership(OwnershipChange, [DeviceID], retained: [OutboundMessage] = [])
    /// Clustered: a frame of a device whose partition is warming up here, processed for its
    /// state only (nothing published, no journal record).
    case shadow(InboundFrame)
    /// The journal passed its high-water mark with records of this shard at its tail: write the
    /// device snapshots now, so the records held for them go (``JournalPressure``).
    case relieveJournal
}
