import CoreMetrics
import Locking
import Logging
import Ownership
import ServiceLifecycle
import TelemetryCore

/// The clustered instance's outputs, published only once the output ledger recorded them under
/// their partitions' leases (docs/scale-out.md, *Fenced outputs*): a holder that lost a lease
/// publishes nothing more for its partition, and an output two holders derive from one frame (a
/// hand-over's overlap, a stand-in's) is published by the first to record it, once.
///
/// Workers hand their outputs over without waiting for the store; this service records them in
/// batches (one statement for whatever queued meanwhile) and publishes what the ledger took, in
/// the order handed over. While the store does not answer, outputs wait (bounded in bytes: then
/// the workers wait, then the subscriber) and nothing is published; once it answers they go out,
/// or are dropped as another holder's, counted.
final class FencedOutputs: OutputSink, Service {
    private struct State {
        var queue: FenceQueue
        var closed = false
        var spaceWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let ledger: any OutputLedger
    private let ownership: LeasedOwnership
    private let publisher: OutboundPublisher
    private let metrics: FencedOutputMetrics
    private let clock: any GatewayClock
    private let logger: Logger
    private let failureLog: RateLimitedLog
    /// Seconds past the shutdown's start the queue may take to drain (`pipeline.drainTimeout`).
    private let drainSeconds: Double
    private let partitions: OwnershipPartitions
    private let state: LockedState<State>
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Bytes of outputs waiting for the ledger before a worker handing more over waits.
    static let maximumQueuedBytes = 16 << 20
    /// Bytes of warm-up outputs kept for hand-overs (the newest are kept).
    static let maximumWarmedBytes = 8 << 20
    /// Outputs per ledger statement at most.
    static let batchKeys = 2000
    /// Seconds one ledger statement may take before it counts as failed (and is retried).
    static let recordDeadline = 5.0
    /// Seconds a ledger record is kept: longer than any hand-over or restart that could derive
    /// the same output again.
    static let retention = 3600.0

    init(
        ledger: any OutputLedger, ownership: LeasedOwnership, publisher: OutboundPublisher, metrics: FencedOutputMetrics, drainSeconds: Double,
        clock: any GatewayClock, logger: Logger
    ) {
        self.ledger = ledger
        self.ownership = ownership
        self.publisher = publisher
        self.metrics = metrics
        self.drainSeconds = drainSeconds
        self.clock = clock
        self.logger = logger
        failureLog = RateLimitedLog(interval: 10, clock: clock)
        partitions = ownership.partitions
        state = LockedState(State(queue: FenceQueue(partitions: ownership.partitions, warmedLimit: Self.maximumWarmedBytes)))
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: The workers' side

    func publish(_ messages: [OutboundMessage], as publication: Publication, countdown: ReleaseCountdown?) async {
        // A frame received as the holder is published under the epoch it was received under
        // even if the partition changed hands before its worker got to it (its successor
        // subscribed only then); anything else by each device's role now.
        let visible = ownership.visible(messages, receivedAs: publication.role)
        // Those about a device another instance holds now are its to publish: done here.
        for _ in visible.count..<messages.count { countdown?.partDone() }
        let messages = visible
        guard !messages.isEmpty else { return }
        // Keyed before the lock: scanning payloads is the workers' work, not the queue's.
        let entry = FenceQueue.entry(messages, countdown: countdown, partitions: partitions)
        await waitForSpace()
        let queued = state.withLock { state -> Int in
            state.queue.append(entry, stamp: stamp)
            return state.queue.queuedBytes
        }
        metrics.queuedBytes.record(queued)
        wake.yield()
    }

    func warmed(_ messages: [OutboundMessage]) {
        // Its retained state is kept (announced again only once the partition is held).
        messages.forEach(publisher.retained.record)
        guard !messages.isEmpty else { return }
        let dropped = state.withLock { $0.queue.warmed(messages, stamp: stamp) }
        if dropped > 0 { metrics.warmedDropped.increment(by: Int64(dropped)) }
        wake.yield()
    }

    func partitionMoved(_ move: PartitionMove) {
        state.withLock { $0.queue.changed(move.change, stamp: stamp) }
        wake.yield()
    }

    /// `messages` stamped as published under `epoch` by this instance.
    private func stamp(_ messages: [OutboundMessage], epoch: Int64) -> [OutboundMessage] {
        ownership.visible(messages, receivedAs: .owner(epoch: epoch))
    }

    /// Returns once the queue has room (or is empty, so one large hand-over still goes).
    private func waitForSpace() async {
        guard state.withLock({ $0.queue.queuedBytes >= Self.maximumQueuedBytes && !$0.closed }) else { return }
        metrics.waits.increment()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.queue.queuedBytes >= Self.maximumQueuedBytes, !state.closed else { return true }
                state.spaceWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: The service

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.prune() }
            await withGracefulShutdownHandler {
                await self.deliver()
            } onGracefulShutdown: {
                // The workers stopped before (it is listed before them): what they handed over goes out.
                self.state.withLock { $0.closed = true }
                self.wake.yield()
            }
            group.cancelAll()
        }
        let left = state.withLock { state -> Int in
            defer { state.spaceWaiters.forEach { $0.resume() } }
            return state.queue.entries.reduce(0) { $0 + $1.messages.count }
        }
        if left > 0 {
            logger.error(
                "fenced outputs: \(left) outputs were not recorded by the store before the drain's end; their frames stay in the journal and are processed again at the next start")
        }
    }

    /// Records and publishes batches until closed and empty, or past the drain's bound after closing.
    private func deliver() async {
        var wakeups = wakeups.makeAsyncIterator()
        var backoff = 0.0
        var drainEnd: SuspendingClock.Instant?
        while true {
            let (batch, closed) = state.withLock { ($0.queue.batch(maximumKeys: Self.batchKeys), $0.closed) }
            if closed && drainEnd == nil { drainEnd = clock.monotonicNow() + .seconds(drainSeconds) }
            if let drainEnd, clock.monotonicNow() >= drainEnd { return }
            guard !batch.isEmpty else {
                if closed { return }
                guard await wakeups.next() != nil else { return }
                continue
            }
            guard await deliverBatch(batch) else {
                backoff = min(max(backoff * 2, 0.05), 1)
                try? await clock.sleep(for: backoff)
                continue
            }
            backoff = 0
            let (queued, waiters) = state.withLock { state -> (Int, [CheckedContinuation<Void, Never>]) in
                state.queue.removeFirst(batch.count)
                guard state.queue.queuedBytes < Self.maximumQueuedBytes else { return (state.queue.queuedBytes, []) }
                defer { state.spaceWaiters = [] }
                return (state.queue.queuedBytes, state.spaceWaiters)
            }
            metrics.queuedBytes.record(queued)
            waiters.forEach { $0.resume() }
        }
    }

    /// Records one batch and publishes what the ledger took; false when the store did not answer
    /// (the batch stays queued, nothing of it published).
    private func deliverBatch(_ batch: ArraySlice<FenceQueue.Entry>) async -> Bool {
        let keys = batch.flatMap { $0.keys.compactMap { $0 } }
        var admission = OutputAdmission(recorded: [], held: [:])
        if !keys.isEmpty {
            let member = ownership.leases.member
            do {
                admission = try await withStoreDeadline(Self.recordDeadline, clock: clock) { [ledger] in try await ledger.record(keys, by: member) }
            } catch {
                metrics.failures.increment()
                if failureLog.shouldLog() {
                    logger.warning(
                        "fenced outputs: the store did not record \(keys.count) outputs (\(error)); nothing is published until it does (gateway_cluster_output_ledger_failures_total)")
                }
                return false
            }
        }
        var recorded = admission.recorded
        // A fenced output's frame is acknowledged to the broker only when this run let the
        // partition go by a hand-over: the successor warmed up on the same frames. A run past
        // its deadline or adopted lost it otherwise; its frame is the stand-in's, left in the
        // session (AcknowledgementsAfterOutputs).
        let status = ownership.status
        let lostByHandOver = !status.pastDeadline && !status.adopted
        for entry in batch {
            var kept: [OutboundMessage] = []
            kept.reserveCapacity(entry.messages.count)
            for (message, key) in zip(entry.messages, entry.keys) {
                guard let key else {
                    kept.append(message)
                    continue
                }
                if admission.held[key.partition] != key.epoch {
                    metrics.fenced.increment()
                    if lostByHandOver { entry.countdown?.partDone() } else { entry.countdown?.partFenced() }
                } else if key.eventID.isEmpty || recorded.remove(OutputIdentity(topic: key.topic, eventID: key.eventID)) != nil {
                    kept.append(message)
                } else {
                    metrics.duplicates.increment()
                    entry.countdown?.partDone()
                }
            }
            await publisher.publish(kept, countdown: entry.countdown)
        }
        return true
    }

    /// Prunes the ledger's records past ``retention`` every minute until cancelled.
    private func prune() async {
        while !Task.isCancelled {
            do {
                let removed = try await withStoreDeadline(60, clock: clock) { [ledger] in try await ledger.pruneOutputs(olderThan: Self.retention) }
                if removed > 0 { logger.debug("fenced outputs: pruned \(removed) ledger records") }
            } catch {
                if Task.isCancelled { return }
                logger.debug("fenced outputs: pruning the ledger failed (\(error)); tried again in a minute")
            }
            try? await clock.sleep(for: 60)
        }
    }
}
