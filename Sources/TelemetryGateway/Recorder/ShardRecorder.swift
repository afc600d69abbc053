import CoreMetrics
import Logging
import TelemetryCore

/// One shard's side of the recorder: stores its devices' accepted chunks in arrival order,
/// holds those the store refused (``RecorderRetryQueue``) and retries them on ticks, and keeps
/// the tremor minute schedule of the shard's devices (owned here, like their derivation state).
struct ShardRecorder {
    /// A held chunk stored by a retry: the tremor minutes it completed, for the chunk's frame.
    struct Stored {
        let messages: [OutboundMessage]
        let receivedAt: Double
        /// Its frame's journal release, waiting for this write.
        let countdown: ReleaseCountdown?
    }

    private let runtime: RecorderRuntime
    private let clock: any GatewayClock
    private let logger: Logger
    private var retries: RecorderRetryQueue
    private var schedule: TremorMinuteSchedule

    /// The bytes of recorder chunks all shards together hold for a failing store.
    static let heldBytes = 64 << 20

    /// The recorder side of one of `shardCount` shards.
    init(runtime: RecorderRuntime, shardCount: Int, clock: any GatewayClock, logger: Logger) {
        self.runtime = runtime
        self.clock = clock
        self.logger = logger
        retries = RecorderRetryQueue(maximumBytes: Self.heldBytes / max(1, shardCount))
        schedule = runtime.makeSchedule()
    }

    /// Stores `chunk` now, unless older chunks are held (a device's chunks reach the store in
    /// arrival order); returns the tremor results of the minutes it completed, or nil when the
    /// chunk must be held (``hold(_:)``): the store failed, or older chunks wait.
    mutating func store(_ chunk: RecordedAccelerometerChunk, device: DeviceID, receivedAt: Double) async -> [OutboundMessage]? {
        guard retries.isEmpty else { return nil }
        return await runtime.store(chunk, device: device, receivedAt: receivedAt, schedule: &schedule)
    }

    /// Holds a chunk for a retry; a chunk let go beyond the held bytes' bound keeps its journal
    /// record (its countdown never completes) for the next start.
    mutating func hold(_ chunk: RecorderRetryQueue.Held) {
        let metrics = runtime.metrics
        metrics.heldChunks.increment()
        for dropped in retries.hold(chunk, at: clock.monotonicNow()) {
            metrics.heldChunks.decrement()
            metrics.chunksLeftInJournal.increment()
            logger.warning(
                "recorder chunk of \(dropped.device) let go of after \(retries.maximumBytes) bytes held for the failing store; \(dropped.countdown == nil ? "without a journal record it is lost" : "its journal record is replayed at the next start") (gateway_recorder_chunks_left_in_journal_total)"
            )
        }
    }

    /// Stores held chunks again, oldest first, once their retry is due; stops at the first
    /// failure. Returns what the stored ones completed, in order (their countdowns are the
    /// caller's to complete once it handed the messages over).
    mutating func retry(at instant: SuspendingClock.Instant) async -> [Stored] {
        guard retries.isDue(at: instant) else { return [] }
        var stored: [Stored] = []
        while let next = retries.first {
            runtime.metrics.storeRetries.increment()
            guard let tremor = await runtime.store(next.chunk, device: next.device, receivedAt: next.receivedAt, schedule: &schedule) else {
                retries.failed(at: instant)
                break
            }
            retries.storedFirst()
            runtime.metrics.heldChunks.decrement()
            stored.append(Stored(messages: tremor.map { $0.carrying(next.traceParent) }, receivedAt: next.receivedAt, countdown: next.countdown))
        }
        return stored
    }

    /// The tremor minutes due at `now` (Unix seconds): closed by time rather than by a chunk.
    mutating func tick(now: Double) async -> [OutboundMessage] {
        await runtime.tick(now: now, schedule: &schedule)
    }
}
