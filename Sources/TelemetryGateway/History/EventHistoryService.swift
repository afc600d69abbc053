import CoreMetrics
import Logging
import RecorderStore
import ServiceLifecycle
import TelemetryCore

/// Writes the event history's buffered events to the store in batches, off the frame path, and
/// prunes the history to `history.retention` (docs/history.md).
///
/// - A batch is the oldest buffered entries up to ``batchEvents`` events; whatever arrives
///   while one is written makes the next, so batches grow with the load and no timer delays a
///   quiet gateway's events.
/// - A failed write keeps the batch, lets go of its frames' journal records, reports the store
///   failing in `/readyz`, and is retried after a backoff on the gateway's clock (0.5 s doubling
///   to 30 s); meanwhile the buffer fills up to its bound and then drops new events, counted.
/// - Every hour (and at start) it cuts the history at the store's clock minus the retention.
/// - Every store call has a deadline (``writeDeadline``, ``pruneDeadline``) on the gateway's
///   clock: a pool that never hands out a connection again (seen after a server restart) must
///   not stop the service, nor the shutdown behind it. A write that commits after its deadline
///   is found stored by its retry (rows are keyed by event time and id).
/// - At graceful shutdown (after the workers stopped: it is listed before them) it writes what
///   is buffered, one attempt per batch; if the store fails then, the rest is dropped and
///   counted (frames whose records it still held are replayed at the next start).
struct EventHistoryService: Service {
    let history: BufferedEventHistory
    let store: any EventHistoryStoring
    /// Seconds of events kept (`history.retention`).
    let retention: Double
    let clock: any GatewayClock
    let logger: Logger

    /// Events per insert at most.
    static let batchEvents = 1000
    /// Seconds between pruning passes.
    static let pruneInterval = 3600.0
    /// The longest backoff after failed writes, seconds.
    static let maximumBackoff = 30.0
    /// Seconds one batch's insert may take before it counts as failed.
    static let writeDeadline = 10.0
    /// Seconds each step of a pruning pass may take (a detach waits up to its lock timeout).
    static let pruneDeadline = 60.0

    func run() async {
        logger.info("event history: \(store.location) (retention \(retention) s)")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await prune() }
            group.addTask { await write() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        await drainAtShutdown()
    }

    /// Writes batches until cancelled.
    private func write() async {
        var wakeups = history.wakeups.makeAsyncIterator()
        var backoff = 0.0
        while !Task.isCancelled {
            let batch = history.nextBatch(maximumEvents: Self.batchEvents)
            guard !batch.isEmpty else {
                guard await wakeups.next() != nil else { return }
                continue
            }
            if await writeBatch(batch) == nil {
                backoff = min(max(backoff * 2, 0.5), Self.maximumBackoff)
                try? await clock.sleep(for: backoff)
            } else {
                backoff = 0
            }
        }
    }

    /// Writes one batch.
    /// - Returns: how many rows were new; nil when the write failed (or was cut by shutdown:
    ///   then the batch stays as it was, holds included, for the shutdown's attempt).
    func writeBatch(_ batch: [EventHistoryBuffer.Entry]) async -> Int? {
        let rows = BufferedEventHistory.rows(of: batch)
        do {
            let inserted = try await withStoreDeadline(Self.writeDeadline, clock: clock) { [store] in try await store.insertEvents(rows) }
            history.metrics.rowsWritten.increment(by: Int64(inserted))
            history.metrics.duplicateRows.increment(by: Int64(rows.count - inserted))
            history.written(batch.count)
            return inserted
        } catch {
            if Task.isCancelled { return nil }
            history.metrics.writeFailures.increment()
            let wasFailing = history.health.lastError != nil
            history.failed(batch.count, error: "\(error)")
            if !wasFailing {
                logger.error("event history: writing \(rows.count) events to \(store.location) failed (\(error)); kept and retried, /readyz shows it")
            }
            return nil
        }
    }

    /// Writes what is left once the workers stopped; the first failure drops the rest.
    private func drainAtShutdown() async {
        history.close()
        while true {
            let batch = history.nextBatch(maximumEvents: Self.batchEvents)
            if batch.isEmpty { return }
            guard await writeBatch(batch) != nil else {
                let dropped = history.dropRemaining()
                logger.error(
                    "event history: the store failed at shutdown; \(dropped) buffered events are dropped (gateway_history_dropped_total); frames whose records they held are replayed at the next start")
                return
            }
        }
    }

    /// Prunes at start and every ``pruneInterval`` until cancelled.
    private func prune() async {
        while !Task.isCancelled {
            do {
                // The store's clock when it has one (PostgreSQL, shared), else this gateway's.
                let now = try await withStoreDeadline(Self.pruneDeadline, clock: clock) { [store] in try await store.storeTime() } ?? clock.wallTime()
                try await withStoreDeadline(Self.pruneDeadline, clock: clock) { [store] in try await store.preparePartitions(around: now) }
                let cutoff = now - retention
                let removed = try await withStoreDeadline(Self.pruneDeadline, clock: clock) { [store] in try await store.pruneEvents(before: cutoff) }
                history.metrics.pruned.increment(by: Int64(removed))
                if removed > 0 { logger.info("event history: pruned \(removed) older than \(retention) s (gateway_history_pruned_total)") }
            } catch {
                if !Task.isCancelled { logger.warning("event history: pruning \(store.location) failed (\(error)); tried again in \(Self.pruneInterval) s") }
            }
            try? await clock.sleep(for: Self.pruneInterval)
        }
    }
}
