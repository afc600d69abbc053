import TelemetryCore

/// One shard's recorder chunks whose store write failed, oldest first, with the journal
/// releases waiting for them: a chunk's journal record is let go only once the chunk is stored,
/// so a crash while the store is away replays it (docs/recorder.md, *When the store fails*).
///
/// While anything is held, the shard's newer chunks queue behind it (a device's chunks reach
/// the store, and its tremor minutes, in arrival order). Retries back off from 0.5 s to 10 s
/// on the monotonic clock. Held bytes are bounded: beyond ``maximumBytes`` the oldest chunk
/// leaves memory with its journal record kept, replayed at the next start.
struct RecorderRetryQueue {
    /// A chunk waiting for its store write.
    struct Held {
        let chunk: RecordedAccelerometerChunk
        let device: DeviceID
        let receivedAt: Double
        let traceParent: TraceParent?
        /// Released once the chunk is stored (nil: no journal record to keep).
        let countdown: ReleaseCountdown?
        /// What the chunk takes in memory, roughly.
        var bytes: Int { 64 + chunk.samples.count * MemoryLayout<RecordedAccelerometerSample>.stride }
    }

    /// The most bytes of held chunks; beyond it the oldest are let go (their records stay).
    let maximumBytes: Int
    private(set) var held: [Held] = []
    private var heldBytes = 0
    private var nextAttempt: SuspendingClock.Instant?
    private var backoff = Duration.milliseconds(500)

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    var isEmpty: Bool { held.isEmpty }
    var first: Held? { held.first }

    /// Holds a chunk behind the others at `instant` (the gateway clock's monotonic now; the
    /// first chunk held is retried one back-off later); returns the chunks let go beyond the
    /// bound (their countdowns never complete, so their journal records stay).
    mutating func hold(_ chunk: Held, at instant: SuspendingClock.Instant) -> [Held] {
        if held.isEmpty { nextAttempt = instant + backoff }
        held.append(chunk)
        heldBytes += chunk.bytes
        var dropped: [Held] = []
        while heldBytes > maximumBytes, held.count > 1 {
            let oldest = held.removeFirst()
            heldBytes -= oldest.bytes
            dropped.append(oldest)
        }
        return dropped
    }

    /// Whether a retry is due at `instant`.
    func isDue(at instant: SuspendingClock.Instant) -> Bool {
        guard !held.isEmpty, let nextAttempt else { return false }
        return instant >= nextAttempt
    }

    /// The oldest chunk was stored: the next one is tried at once, and the back-off restarts.
    mutating func storedFirst() {
        let first = held.removeFirst()
        heldBytes -= first.bytes
        backoff = .milliseconds(500)
    }

    /// A retry failed: the next waits longer, up to 10 s.
    mutating func failed(at instant: SuspendingClock.Instant) {
        backoff = min(backoff * 2, .seconds(10))
        nextAttempt = instant + backoff
    }
}
