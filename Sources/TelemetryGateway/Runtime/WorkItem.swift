import RecorderStore
import TelemetryCore

/// What a shard worker receives: frames from the subscriber, and clock ticks that let the pure
/// processor close error-aggregation windows (it never reads a clock itself).
enum WorkItem: Sendable {
    /// A frame to check and process; the ticket (nil when the journal is off or was full)
    /// releases its journal record once everything it produced is acknowledged.
    case frame(InboundFrame, JournalTicket?)
    /// A journal record of an earlier run, replayed at the start: processed like a frame, unless
    /// (clustered) another instance owns its device by now.
    case replayed(InboundFrame, JournalTicket)
    /// The current time, Unix epoch seconds (for the core's timers, which compare devices'
    /// dates), and the same instant on the monotonic clock (for the worker's own schedules,
    /// which no step of the wall clock may stretch or cut short).
    case tick(Double, SuspendingClock.Instant)
    /// A head-pose reset command for a device, in order with its frames.
    case resetPose(DeviceID, receivedAt: Double, retained: Bool, JournalTicket?)
    /// A reloaded registry and capability table, effective at the given Unix time (SIGHUP).
    case policy(AccessPolicy, Double)
    /// Partitioned mode: this instance gained a device (restore it from its previous owner's
    /// snapshot or its context frames before its next frame), finished warming up for it, or
    /// lost it; see ``DeviceHandover``.
    case handover(HandoverChange)
    /// Clustered on the shared store: another instance (or this one) claimed the device under
    /// the epoch given, as the store notified it (``ClaimNoticeService``); in order with the
    /// device's frames, so nothing queued after it is published under an older claim.
    case claimNotice(DeviceID, DeviceOwnership)
    /// Partitioned mode: a frame of a device this instance will own after the warm-up,
    /// processed for its state only (nothing published, no journal record).
    case shadow(InboundFrame)
    /// The journal passed its high-water mark with records of this shard at its tail: write the
    /// device snapshots now, so the records held for them go (``JournalPressure``).
    case relieveJournal
}
