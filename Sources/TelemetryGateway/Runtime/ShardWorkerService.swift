import CoreMetrics
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

/// The shard workers and the recorder-query answerer as one service. It stops after the
/// subscriber (which closes the queues): the workers finish what is queued, bounded by
/// `pipeline.drainTimeout`; past that they are cancelled and what they had not processed stays
/// in the journal for the next start.
struct ShardWorkerService: Service {
    /// One queue per shard; the subscriber closes them at shutdown.
    let queues: [HandoffQueue<WorkItem>]
    /// Makes shard `n`'s device-state keeper (restores, snapshots, evictions).
    let makeDeviceStates: @Sendable (_ shard: Int) -> DeviceStateKeeper
    let dependencies: ShardWorker.Dependencies
    /// Answers recorder queries beside the workers.
    let answerer: RecorderQueryAnswerer
    let deadline: ShutdownDeadline
    let shutdownReport: ShutdownReport

    private enum Event: Sendable {
        case workerStopped
        case drainDeadline
    }

    func run() async {
        let (queues, dependencies, answerer) = (queues, dependencies, answerer)
        let logger = dependencies.logger
        await withTaskCancellationHandler {
            await withTaskGroup(of: Event.self) { group in
                for (shard, queue) in queues.enumerated() {
                    let deviceStates = makeDeviceStates(shard)
                    group.addTask {
                        var worker = ShardWorker(
                            shard: shard, shardCount: queues.count, queue: queue, deviceStates: deviceStates, dependencies: dependencies)
                        await worker.run()
                        return .workerStopped
                    }
                }
                group.addTask {
                    await answerer.run()
                    return .workerStopped
                }
                // Our turn comes after the subscriber has stopped and closed the queues.
                try? await gracefulShutdown()
                let (remaining, clock) = (deadline.drainRemaining, dependencies.clock)
                group.addTask {
                    try? await clock.sleep(for: remaining)
                    return .drainDeadline
                }
                var running = queues.count + 1
                while running > 0, let event = await group.next() {
                    switch event {
                    case .workerStopped:
                        running -= 1
                    case .drainDeadline:
                        let left = queues.map(\.depth).reduce(0, +)
                        shutdownReport.record("workers did not drain within pipeline.drainTimeout; \(left) queued frames left in the journal")
                        logger.error(
                            "workers did not drain within pipeline.drainTimeout (\(deadline.drainTimeout) s); \(left) queued frames stay in the journal for the next start")
                        group.cancelAll()
                    }
                }
                group.cancelAll()
            }
        } onCancel: {
            // Cancelled from outside (the group's own deadline): wake the workers so they stop.
            queues.forEach { $0.close() }
            answerer.queries.close()
        }
    }
}
