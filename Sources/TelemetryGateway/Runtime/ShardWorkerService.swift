import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

/// The shard workers and the recorder-query answerer as one service. It stops after the
/// subscriber (which closes the queues): the workers finish what is queued, bounded by
/// `pipeline.drainTimeout`; past that they are cancelled and what they had not processed stays
/// in the journal for the next start.
struct ShardWorkerService: Service {
    let runtime: GatewayRuntime
    let deadline: ShutdownDeadline

    private enum Event: Sendable {
        case workerStopped
        case drainDeadline
    }

    func run() async {
        let runtime = runtime
        await withTaskCancellationHandler {
            await withTaskGroup(of: Event.self) { group in
                for shard in 0..<runtime.shardCount {
                    group.addTask {
                        var worker = ShardWorker(shard: shard, runtime: runtime)
                        await worker.run()
                        return .workerStopped
                    }
                }
                group.addTask {
                    await RecorderQueryAnswerer(runtime: runtime).run()
                    return .workerStopped
                }
                // Our turn comes after the subscriber has stopped and closed the queues.
                try? await gracefulShutdown()
                let remaining = deadline.drainRemaining
                group.addTask {
                    try? await Task.sleep(for: .seconds(remaining))
                    return .drainDeadline
                }
                var running = runtime.shardCount + 1
                while running > 0, let event = await group.next() {
                    switch event {
                    case .workerStopped:
                        running -= 1
                    case .drainDeadline:
                        let left = runtime.queues.map(\.depth).reduce(0, +)
                        runtime.shutdownReport.record("workers did not drain within pipeline.drainTimeout; \(left) queued frames left in the journal")
                        runtime.logger.error(
                            "workers did not drain within pipeline.drainTimeout (\(deadline.drainTimeout) s); \(left) queued frames stay in the journal for the next start")
                        group.cancelAll()
                    }
                }
                group.cancelAll()
            }
        } onCancel: {
            // Cancelled from outside (the group's own deadline): wake the workers so they stop.
            runtime.queues.forEach { $0.close() }
            runtime.queries.close()
        }
    }
}
