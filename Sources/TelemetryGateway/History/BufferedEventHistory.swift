import CoreMetrics
import Locking
import Logging
import RecorderStore
import TelemetryCore

/// The event history with a store: the kept events of every frame go into a byte-bounded
/// buffer at once (a lock and an append on the worker's path, never a store call), and
/// ``EventHistoryService`` writes them in batches (docs/history.md).
final class BufferedEventHistory: EventHistory {
    /// The leaves kept (`history.families`).
    private let families: Set<TopicScheme.Leaf>
    private let buffer: LockedState<EventHistoryBuffer>
    /// Wakes the writer when a first entry arrives in an empty buffer.
    let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    let metrics: HistoryMetrics
    private let logger: Logger
    private let dropLog: RateLimitedLog
    /// The last write's error while the store is failing; nil once a write succeeds.
    private let failure = LockedState<String?>(nil)

    /// A history keeping `families` (leaf raw values; unknown ones are ignored, the keys' checks
    /// refuse them) in a buffer of at most `maximumBytes`.
    init(families: Set<String>, maximumBytes: Int, metrics: HistoryMetrics, clock: any GatewayClock, logger: Logger) {
        dropLog = RateLimitedLog(interval: 10, clock: clock)
        self.families = Set(families.compactMap(TopicScheme.Leaf.init(rawValue:)))
        buffer = LockedState(EventHistoryBuffer(maximumBytes: maximumBytes))
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.metrics = metrics
        self.logger = logger
    }

    func record(_ messages: [OutboundMessage], receivedAt: Double, holding countdown: ReleaseCountdown?) {
        var kept: [OutboundMessage] = []
        for message in messages where message.device != nil {
            if let leaf = message.leaf, families.contains(leaf) { kept.append(message) }
        }
        guard !kept.isEmpty else { return }
        countdown?.addPart()
        let entry = EventHistoryBuffer.Entry(messages: kept, receivedAt: receivedAt, hold: countdown)
        let (admitted, bytes) = buffer.withLock { ($0.append(entry), $0.bytes) }
        guard admitted else {
            metrics.dropped.increment(by: Int64(kept.count))
            countdown?.partDone()
            if dropLog.shouldLog() {
                logger.warning(
                    "event history: the buffer holds \(bytes) bytes waiting for the store (history.bufferBytes); new events are dropped until it drains (gateway_history_dropped_total)"
                )
            }
            return
        }
        metrics.bufferedBytes.record(bytes)
        wake.yield()
    }

    // MARK: The writer's side

    /// The oldest buffered entries, up to `maximumEvents` events; they stay buffered.
    func nextBatch(maximumEvents: Int) -> [EventHistoryBuffer.Entry] {
        buffer.withLock { Array($0.batch(maximumEvents: maximumEvents)) }
    }

    /// The `count` oldest entries were written: their records are let go.
    func written(_ count: Int) {
        let (holds, bytes) = buffer.withLock { ($0.removeFirst(count), $0.bytes) }
        metrics.bufferedBytes.record(bytes)
        failure.withLock { $0 = nil }
        for hold in holds { hold.partDone() }
    }

    /// Writing the `count` oldest entries failed: they stay for the retry, their records are let
    /// go (a store outage must not pin the journal, docs/history.md *kill -9*).
    func failed(_ count: Int, error: String) {
        let holds = buffer.withLock { $0.releaseHolds(ofFirst: count) }
        failure.withLock { $0 = error }
        for hold in holds { hold.partDone() }
    }

    /// Drops everything still buffered (the store failed at shutdown), counted.
    /// - Returns: how many events were dropped.
    func dropRemaining() -> Int {
        let dropped = buffer.withLock { buffer in
            let before = buffer.dropped
            buffer.dropAll()
            return buffer.dropped - before
        }
        metrics.dropped.increment(by: Int64(dropped))
        metrics.bufferedBytes.record(0)
        return dropped
    }

    /// Ends ``wakeups`` (shutdown).
    func close() { wake.finish() }

    /// What `/readyz` says of the history.
    var health: HealthReport.HistoryHealth {
        let (bytes, maximum, dropped) = buffer.withLock { ($0.bytes, $0.maximumBytes, $0.dropped) }
        return HealthReport.HistoryHealth(bufferedBytes: bytes, bufferBytes: maximum, dropped: dropped, lastError: failure.withLock { $0 })
    }

    /// The rows of a batch: each event keyed by its `eventId` (a hash of the device, the family
    /// and the payload for the rare event without one) at its `date`, or at the time its frame
    /// arrived for events without one (swings, strokes: their timestamps are the device's uptime).
    static func rows(of entries: [EventHistoryBuffer.Entry]) -> [EventHistoryRow] {
        var rows: [EventHistoryRow] = []
        rows.reserveCapacity(entries.reduce(0) { $0 + $1.messages.count })
        for entry in entries {
            for message in entry.messages {
                guard let device = message.device, let leaf = message.leaf else { continue }
                let fields = HistoryEventFields(scanning: message.payload)
                let id = fields.eventId ?? EventID.make(device.rawValue, leaf.rawValue, message.payloadString)
                rows.append(
                    EventHistoryRow(device: device, family: leaf.rawValue, eventTime: fields.date ?? entry.receivedAt, eventId: id, payload: message.payload))
            }
        }
        return rows
    }
}
