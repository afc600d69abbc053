import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import RecorderStore
import ServiceLifecycle
import TelemetryCore
import UnixSignals

/// Sends each worker the time twice a second so it can close error windows and let time-based
/// derivations fire (the pure core reads no clock).
struct TickerService: Service {
    let runtime: GatewayRuntime

    func run() async {
        let period = min(0.5, runtime.configuration.pipeline.errorReportInterval / 2)
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(period))
                runtime.operations.health.beat("ticker", every: period)
                let now = Date().timeIntervalSince1970
                let instant = SuspendingClock.now
                for queue in runtime.queues { queue.pushControl(.tick(now, instant)) }
            }
        }
    }
}

/// Reloads the registry and capability table on SIGHUP and hands a changed policy to every
/// worker through its queue, so it takes effect between frames: nothing restarts, no frame is
/// dropped, learnt device state is kept. A bad file keeps the old policy (logged).
struct PolicyReloadService: Service {
    let runtime: GatewayRuntime

    func run() async {
        let files = runtime.configuration.accessPolicyFiles
        var current = runtime.accessPolicy
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            runtime.logger.info("SIGHUP: reloading \(files.registry ?? "(no registry)") and \(files.capabilities)")
            let outcome = AccessPolicyLoader.reload(files, current: current)
            outcome.log(to: runtime.logger, files: files)
            guard case .replaced(let loaded) = outcome else { continue }
            current = loaded.policy
            let now = Date().timeIntervalSince1970
            for queue in runtime.queues { queue.pushControl(.policy(loaded.policy, now)) }
        }
    }
}

/// Prunes the recorder store by age and sample count until shutdown.
struct RecorderPruningService: Service {
    let runtime: GatewayRuntime

    func run() async {
        // runPruning loops until cancelled; graceful shutdown cancels it.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await runtime.recorder.runPruning() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}

/// Writes the journal's dirty pages to disk every `journal.flushInterval`, which bounds what a
/// power loss may cost (a process crash costs nothing: the page cache survives it); once more
/// after the workers have stopped.
struct JournalSyncService: Service {
    let runtime: GatewayRuntime

    func run() async {
        guard let journal = runtime.journal else {
            try? await gracefulShutdown()
            return
        }
        let interval = runtime.configuration.journal.flushInterval
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(interval))
                await journal.syncOffPool()
                runtime.metrics.sample(journal: journal.statistics)
            }
        }
        await journal.syncOffPool()
    }
}

/// Times a QoS 1 probe on `gateway/probe` to its PUBACK (`mqtt_publish_round_trip_seconds`);
/// an unanswered probe while connected makes `/healthz` fail.
struct RoundTripProbeService: Service {
    let runtime: GatewayRuntime

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await runtime.operations.runRoundTripProbe(publisher: runtime.publisher.client) }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}

/// Removes device snapshots older than `state.retention` once an hour (and at start), so
/// devices long gone do not keep rows forever.
struct DeviceStatePruningService: Service {
    let runtime: GatewayRuntime

    func run() async {
        guard let store = runtime.deviceStates else {
            try? await gracefulShutdown()
            return
        }
        let retention = runtime.configuration.state.retention
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await store.prune(lastSeenBefore: Date().timeIntervalSince1970 - retention)
                    if removed > 0 { runtime.logger.info("removed \(removed) device snapshots older than state.retention (\(retention) s)") }
                } catch {
                    runtime.deviceStateMetrics.storeFailures.increment()
                    runtime.logger.error("state.path: pruning \(store.path) failed: \(error)")
                }
                try await Task.sleep(for: .seconds(3600))
            }
        }
    }
}
