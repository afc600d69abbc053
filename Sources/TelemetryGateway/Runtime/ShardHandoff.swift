import GatewayJournal
import CoreMetrics
import Logging
import TelemetryCore

/// The network thread's side of the shard queues: a device's work items go to the queue of the
/// shard its id hashes to (so its order is kept), and a full queue blocks the thread for at most
/// `pipeline.maxHandoffWait`, counted, before the item is let in over the limit (logged at most
/// every 10 s): waiting pushes back on the broker, and only the subscribe-only connection waits.
struct ShardHandoff: Sendable {
    /// One queue per shard.
    let queues: [HandoffQueue<WorkItem>]
    let shards: ShardRouter
    /// How long a full queue may block the network thread (`pipeline.maxHandoffWait`).
    private let maximumWait: Double
    private let metrics: GatewayMetrics
    private let overload: RateLimitedLog
    private let logger: Logger

    init(queues: [HandoffQueue<WorkItem>], maximumWait: Double, metrics: GatewayMetrics, clock: any GatewayClock, logger: Logger) {
        self.queues = queues
        shards = ShardRouter(shardCount: queues.count)
        self.maximumWait = maximumWait
        self.metrics = metrics
        overload = RateLimitedLog(interval: 10, clock: clock)
        self.logger = logger
    }

    /// Hands `item` (of `bytes`, from a frame on `topic`) to shard `shard`'s worker.
    /// Hands a routed frame to its shard's worker: to process and publish, or, for a warming
    /// partition, to process for its state only; `storeOnly`, a replayed recorder upload of a
    /// device held elsewhere now, stored as history and not applied.
    func push(_ frame: RoutedFrame, storeOnly: Bool = false) {
        let item: WorkItem = storeOnly ? .replayedUpload(frame) : frame.publication.isWarming ? .shadow(frame) : .frame(frame)
        push(item, bytes: frame.bytes, shard: frame.shard, topic: frame.frame.topic, journaled: frame.release != nil)
    }

    private func push(_ item: WorkItem, bytes: Int, shard: Int, topic: String, journaled: Bool) {
        switch queues[shard].push(item, bytes: bytes, maxWait: maximumWait) {
        case .accepted(let waited):
            if waited > 0 {
                metrics.handoffWaits.increment()
                metrics.handoffBlockedSeconds.increment(by: waited)
            }
        case .acceptedOverCapacity(let waited):
            metrics.handoffWaits.increment()
            metrics.handoffBlockedSeconds.increment(by: waited)
            metrics.handoffOverCapacity.increment()
            if overload.shouldLog() {
                logger.warning(
                    "worker \(shard) is overloaded: the queues stayed full (pipeline.queueCapacity / pipeline.maxBufferedBytes) for pipeline.maxHandoffWait (\(maximumWait) s); admitting frames over the limit (see gateway_handoff_over_capacity_total)"
                )
            }
        case .closed:
            // Kept in the journal (if it is there) for the next start.
            metrics.handoffClosed.increment()
            logger.warning("a frame arrived after shutdown began and was left \(journaled ? "in the journal" : "unprocessed"): \(topic)")
        }
    }
}
