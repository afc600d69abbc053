import TelemetryCore

/// Where a shard worker hands the events it derived for the event history (docs/history.md):
/// ``NoEventHistory`` when the history is off, ``BufferedEventHistory`` when a store keeps it.
/// The worker calls it the same way either way, and it never waits for a store.
protocol EventHistory: Sendable {
    /// Takes the kept ones of `messages`, derived from a frame received at `receivedAt` (or by
    /// a tick at that time). With `countdown` (the frame's journal record), adds a part to it
    /// that is done once those events are written, a write of them failed, or they were
    /// dropped; the caller's own part must still be outstanding.
    func record(_ messages: [OutboundMessage], receivedAt: Double, holding countdown: ReleaseCountdown?)
}

/// The event history is off (`history.enabled`) or there is no store: nothing is kept.
struct NoEventHistory: EventHistory {
    func record(_ messages: [OutboundMessage], receivedAt: Double, holding countdown: ReleaseCountdown?) {}
}
