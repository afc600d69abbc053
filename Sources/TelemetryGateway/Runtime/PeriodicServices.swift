import GatewayJournal
import CoreMetrics
import Logging
import MQTTTransport
import RecorderStore
import ServiceLifecycle
import TelemetryCore
import UnixSignals

/// Sends each worker the time twice a second so it can close error windows, let time-based
/// derivations fire (the pure core reads no clock) and write its device snapshots.
struct TickerService: Service {
    /// Every shard's queue.
    let queues: [HandoffQueue<WorkItem>]
    /// Seconds between ticks.
    let period: Double
    let health: RuntimeHealth
    let clock: any GatewayClock

    /// Ticks twice a second, or twice per error window when that is shorter, and at least once
    /// per `state.snapshotInterval`: snapshots are written on ticks, so a shorter interval
    /// than the ticks' would not be honoured.
    static func period(errorReportInterval: Double, snapshotInterval: Double) -> Double {
        min(0.5, errorReportInterval / 2, snapshotInterval)
    }

    func run() async {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await clock.sleep(for: period)
                health.beat("ticker", every: period)
                let now = clock.wallTime()
                let instant = clock.monotonicNow()
                for queue in queues { queue.pushControl(.tick(now, instant)) }
            }
        }
    }
}

/// Reloads the registry and capability table on SIGHUP and hands a changed policy to every
/// worker through its queue, so it takes effect between frames: nothing restarts, no frame is
/// dropped, learnt device state is kept. A bad file keeps the old policy (logged).
struct PolicyReloadService: Service {
    /// The registry and capability files (`registry.file`, `capabilities.file`).
    let files: AccessPolicyFiles
    /// The policy the gateway started with.
    let initial: AccessPolicy
    /// Every shard's queue.
    let queues: [HandoffQueue<WorkItem>]
    let clock: any GatewayClock
    let logger: Logger

    func run() async {
        var current = initial
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            logger.info("SIGHUP: reloading \(files.registry ?? "(no registry)") and \(files.capabilities)")
            let outcome = AccessPolicyLoader.reload(files, current: current)
            outcome.log(to: logger, files: files)
            guard case .replaced(let loaded) = outcome else { continue }
            current = loaded.policy
            let now = clock.wallTime()
            for queue in queues { queue.pushControl(.policy(loaded.policy, now)) }
        }
    }
}

/// Prunes the recorder store by age and sample count until shutdown.
struct RecorderPruningService: Service {
    let recorder: RecorderRuntime

    func run() async {
        // runPruning loops until cancelled; graceful shutdown cancels it.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [recorder] in await recorder.runPruning() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}

/// Writes the journal's records not released yet to disk every `journal.flushInterval`, which
/// bounds what a power loss may cost (a process crash costs nothing: the page cache survives
/// it); once more after the workers have stopped. Counts what each sync wrote and how long it
/// took; a sync that fails is counted and logged (at most once per 30 s).
struct JournalSyncService: Service {
    /// The journal; nil when `journal.path` is null (the service then only waits for the shutdown).
    let journal: InboundJournal?
    /// Seconds between syncs (`journal.flushInterval`).
    let interval: Double
    let metrics: GatewayMetrics
    /// Where the interval is waited for and failure logs are spaced.
    let clock: any GatewayClock
    let logger: Logger

    func run() async {
        let failureLog = RateLimitedLog(interval: 30, clock: clock)
        guard let journal else {
            try? await gracefulShutdown()
            return
        }
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await clock.sleep(for: interval)
                await sync(journal, failureLog: failureLog)
                metrics.sample(journal: journal.statistics)
            }
        }
        await sync(journal, failureLog: failureLog)
    }

    private func sync(_ journal: InboundJournal, failureLog: RateLimitedLog) async {
        let (outcome, seconds) = await journal.syncOffPool()
        metrics.journalSyncedBytes.increment(by: outcome.bytes)
        metrics.journalSyncSeconds.increment(by: seconds)
        guard let failure = outcome.failure else { return }
        metrics.journalSyncFailures.increment()
        if failureLog.shouldLog() {
            logger.error(
                "journal.path: cannot write the journal \(journal.path) to disk: \(failure); a power loss may cost more than journal.flushInterval (gateway_journal_sync_failures_total)")
        }
    }
}

/// Times a QoS 1 probe on `gateway/probe` to its PUBACK (`gateway_mqtt_publish_round_trip_seconds`);
/// an unanswered probe while connected makes `/healthz` fail.
struct RoundTripProbeService: Service {
    let operations: GatewayOperations
    /// The connection the probe is published on.
    let connection: any OutboundConnection

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [operations, connection] in await operations.runRoundTripProbe(publisher: connection) }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}

/// Removes device snapshots older than `state.retention` once an hour (and at start), so
/// devices long gone do not keep rows forever.
struct DeviceStatePruningService: Service {
    /// The store; nil keeps device state in memory only (nothing to prune).
    let store: (any DeviceSnapshotStoring)?
    /// Seconds a snapshot is kept after its device was last seen (`state.retention`).
    let retention: Double
    let metrics: DeviceStateMetrics
    let clock: any GatewayClock
    let logger: Logger

    func run() async {
        guard let store else {
            try? await gracefulShutdown()
            return
        }
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    // On the shared store's clock when there is one (see RecorderRuntime.runPruning).
                    let now = try await withCancellableStoreCall { try await store.storeTime() } ?? clock.wallTime()
                    let cutoff = now - retention
                    let removed = try await withCancellableStoreCall { try await store.prune(lastSeenBefore: cutoff) }
                    if removed > 0 { logger.info("removed \(removed) device snapshots older than state.retention (\(retention) s)") }
                } catch is CancellationError {
                    return
                } catch {
                    metrics.storeFailures.increment()
                    logger.error("pruning the device state store \(store.location) failed: \(error)")
                }
                try await clock.sleep(for: 3600)
            }
        }
    }
}

/// Listed first, so it stops last: once every other part of the run has stopped (the publisher's
/// last acknowledgements released their records), it syncs the journal and releases its file lock,
/// so a gateway started next in the same process (the testing kit's restarts) can open it.
///
/// The journal's deinit closes the file too, but not at a moment anyone can wait for: every
/// service holding the journal travels in the service group's child-task result, which the Swift
/// runtime frees with the finished child task, on a pool thread, sometimes after
/// `ServiceGroup.run()` has returned (seen in about one run in six of `RuntimeDrainTests` without
/// this service). So the run lets go of the file at a definite point, its end.
struct JournalReleaseService: Service {
    let journal: InboundJournal?

    func run() async {
        try? await gracefulShutdown()
        guard let journal else { return }
        await journal.syncOffPool()
        journal.unlock()
    }
}
