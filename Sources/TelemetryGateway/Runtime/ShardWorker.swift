import GatewayJournal
import CoreMetrics
import Logging
import RecorderStore
import TelemetryCore
import Tracing

/// One shard's processing loop: takes its queue's frames in arrival order, runs them through the
/// pure ``FrameProcessor`` (and the recorder), publishes what comes out, and releases each frame's
/// journal record once all of that is acknowledged by the broker.
struct ShardWorker {
    /// What every shard's worker works with; one value shared by all of them.
    struct Dependencies: Sendable {
        /// How frames are checked and derived (the same for every shard).
        let processor: FrameProcessor.Configuration
        /// The publisher, for its retained-state cache.
        let publisher: OutboundPublisher
        /// Where outputs go (published at once, or once fenced: ``OutputSink``), under the role
        /// each frame was routed under; acknowledgements release journal records.
        let outputs: any OutputSink
        /// The inbound journal, whose pressure the worker relieves; nil without one.
        let journal: InboundJournal?
        /// Stores recorder chunks and publishes tremor minutes.
        let recorder: RecorderRuntime
        let metrics: GatewayMetrics
        /// Health beats, the fleet view and latency histograms.
        let operations: GatewayOperations
        let logger: Logger
        let ownershipMetrics: OwnershipMetrics
        /// Spans of processed frames; nil while export is off (`tracing.otlpEndpoint`).
        let tracing: FrameTracing?
        /// Where held recorder chunks' retries are scheduled and the drain deadline is waited for.
        let clock: any GatewayClock
        /// Where derived events go for the event history (docs/history.md).
        var history: any EventHistory = NoEventHistory()
    }

    let shard: Int
    /// This shard's frames and control items, in arrival order.
    private let queue: HandoffQueue<WorkItem>
    private let dependencies: Dependencies
    /// Restores, snapshots and evicts this shard's devices.
    private var deviceStates: DeviceStateKeeper
    /// Which devices belong to which shard (to find this shard's stored devices).
    private let router: ShardRouter
    /// This shard's recorder chunks and tremor minutes.
    private var recorder: ShardRecorder

    /// A worker for `shard` of `shardCount`, taking its items from `queue`.
    init(shard: Int, shardCount: Int, queue: HandoffQueue<WorkItem>, deviceStates: DeviceStateKeeper, dependencies: Dependencies) {
        self.shard = shard
        self.queue = queue
        self.deviceStates = deviceStates
        self.dependencies = dependencies
        router = ShardRouter(shardCount: shardCount)
        recorder = ShardRecorder(runtime: dependencies.recorder, shardCount: shardCount, clock: dependencies.clock, logger: dependencies.logger)
    }

    /// Runs until the queue is closed and empty, or the task is cancelled (drain deadline): then
    /// the frames not yet processed are counted and stay in the journal for the next start.
    mutating func run() async {
        var processor = FrameProcessor(configuration: dependencies.processor)
        await deviceStates.stored.load(router: router)
        let health = dependencies.operations.health
        while let batch = await queue.next() {
            health.beat("worker-\(shard)", every: 0.5)  // ticks arrive twice a second
            for item in batch {
                if Task.isCancelled {
                    if item.isFrame { dependencies.metrics.framesLeftInJournal.increment() }
                    continue
                }
                switch item {
                case .frame(let frame):
                    let now = dependencies.clock.monotonicNow()
                    await perform(await deviceStates.stored.admit(frame, into: &processor, at: now), processor: &processor)
                case .replayedUpload(let frame):
                    await storeReplayedUpload(frame, processor: &processor)
                case .tick(let now, let instant):
                    await perform(await deviceStates.stored.retryWaiting(into: &processor, at: instant), processor: &processor)
                    await flush(processor.flush(now: now), at: now)
                    await deviceStates.persist(&processor, now: now, at: instant)
                    for stored in await recorder.retry(at: instant) {
                        await flush(stored.messages, at: stored.receivedAt)
                        stored.countdown?.partDone()
                    }
                    await flush(await recorder.tick(now: now), at: now)
                case .relieveJournal:
                    await deviceStates.persistNow(&processor)
                    dependencies.journal?.relieved(shard: shard)
                case .policy(let policy, let date):
                    await flush(processor.replaceAccessPolicy(policy, date: date))
                case .partitionMoved(let move):
                    await movePartition(move, processor: &processor)
                case .shadow(let frame):
                    // A warming partition's device: its stored state first, nothing published. Without
                    // it (the store away) the frame is its holder's: a fresh state here would stick.
                    if let device = frame.device,
                        case .pending = await deviceStates.stored.restoreIfDormant(device, into: &processor, at: dependencies.clock.monotonicNow())
                    {
                        dependencies.ownershipMetrics.framesUnrestored.increment()
                        continue
                    }
                    dependencies.outputs.warmed(evaluate(frame, processor: &processor).result?.messages ?? [])
                }
            }
            // The context frames of this batch, in the store before the next batch is taken.
            await deviceStates.persistContext(processor)
        }
        // Frames still waiting for their device's stored state stay in the journal for the next start.
        dependencies.metrics.framesLeftInJournal.increment(by: deviceStates.stored.takeAllWaiting())
        if !Task.isCancelled {
            // Report what the open error windows still hold before stopping.
            await flush(processor.finish())
            await deviceStates.persist(&processor, now: nil, at: nil)
        }
        health.retire("worker-\(shard)")
        dependencies.logger.debug("worker \(shard) stopped")
    }

    /// A partition changed hands. Gained or warming: its stored devices are restored at their
    /// first frame (one warmed up in memory keeps its state); gained, its snapshots' retained
    /// messages fill the topics this instance has none of. Lost: its devices in memory and their
    /// retained messages are let go (the next holder continues from the store).
    private mutating func movePartition(_ move: PartitionMove, processor: inout FrameProcessor) async {
        dependencies.outputs.partitionMoved(move)
        guard move.isLost else {
            deviceStates.stored.awaitRestore(move.devices.filter { !processor.isResident($0) })
            if move.isGained { dependencies.publisher.retained.restore(move.retained) }
            return
        }
        // Frames that came while it was held are processed by the role they arrived under:
        // with the stored state if the store answers now, else without it.
        await perform(await deviceStates.stored.retryWaiting(into: &processor, at: dependencies.clock.monotonicNow()), processor: &processor)
        await perform(deviceStates.stored.giveUpWaiting(matching: move.contains), processor: &processor)
        let leaving = processor.residentDevices.filter(move.contains)
        await deviceStates.forgetPartition(where: move.contains, leaving: leaving, processor: processor)
        for device in leaving { processor.forget(device) }
        dependencies.publisher.retained.forget(partition: move.partition) { [router, shard] in router.shard(forRoutingKey: $0.rawValue) == shard }
        dependencies.ownershipMetrics.devicesLost.increment(by: leaving.count)
    }

    /// Carries out what frames' way through their devices' restores came to: a restored
    /// snapshot's unacknowledged outputs published again (kept with the device's snapshots until
    /// acknowledged this time), frames processed.
    private mutating func perform(_ steps: [StoredDevices.Step], processor: inout FrameProcessor) async {
        for step in steps {
            switch step {
            case .republish(let device, let sequence, let messages):
                let unacknowledged = deviceStates.unacknowledged
                let acknowledged = ReleaseCountdown(parts: messages.count) { unacknowledged.acknowledged(device, sequence: sequence) }
                // Clustered, stamped by this holder (so the ledger fences them, and withholds
                // those the holder that stored them had published after all).
                await dependencies.outputs.publish(messages, as: .current, countdown: acknowledged)
            case .process(let frame):
                await processRestored(frame, processor: &processor)
            }
        }
    }

    /// Processes a frame whose device's stored state, if any, is restored.
    private mutating func processRestored(_ frame: RoutedFrame, processor: inout FrameProcessor) async {
        // Export on: the frame's span, whose context its messages carry instead of the frame's.
        guard let topic = frame.topic, let span = dependencies.tracing?.begin(frame.frame, topic: topic) else {
            await apply(frame, span: nil, processor: &processor)
            return
        }
        // The span is the task's current context meanwhile, so what is logged for the frame
        // carries its trace_id and span_id (JSONLogHandler.spanMetadata).
        await ServiceContext.$current.withValue(span.span.context) {
            await apply(frame, span: span, processor: &processor)
        }
    }

    /// Checks and processes a frame (its result), or carries out a command (no result): with
    /// whether its effect lives in its device's snapshot.
    private func evaluate(_ routed: RoutedFrame, traceParent: TraceParent? = nil, processor: inout FrameProcessor) -> (result: FrameResult?, changesSnapshot: Bool) {
        switch routed.command {
        case .frame(let topic):
            var frame = routed.frame
            if let traceParent { frame.traceParent = traceParent }
            let result = processor.process(frame, topic: topic)
            return (result, result.changesSnapshot)
        case .resetPose(let device):
            let reset = processor.resetHeadphonePose(of: device, at: routed.frame.receivedAt, retained: routed.frame.retained)
            if reset { dependencies.logger.debug("reset the head pose reference of \(device)") }
            // The new reference lives in the device's snapshot: the command's record waits for it.
            return (nil, reset)
        }
    }

    /// Processes a frame (or a command) whose device's stored state, if any, is restored,
    /// publishes its outputs and sets up the release of its journal record.
    private mutating func apply(_ routed: RoutedFrame, span: FrameSpan?, processor: inout FrameProcessor) async {
        let traceParent = span?.traceParent ?? routed.frame.traceParent
        let (result, changesSnapshot) = evaluate(routed, traceParent: span?.traceParent, processor: &processor)
        let receivedAt = routed.frame.receivedAt
        var messages = result?.messages ?? []
        var heldChunk: RecordedAccelerometerChunk?
        if case .recorderAccelerometer(let chunk)? = result?.frame, let device = routed.device {
            // Stored before the frame is counted, so a query after the count sees it. Behind
            // held chunks, or when the store fails, it is held too (retried on ticks).
            if let tremor = await recorder.store(chunk, device: device, receivedAt: receivedAt) {
                messages += tremor.map { $0.carrying(traceParent) }
            } else {
                heldChunk = chunk
            }
        }
        let countdowns = deviceStates.applied(routed, messages: messages, changesSnapshot: changesSnapshot, heldChunk: heldChunk != nil)
        if let heldChunk, let device = routed.device {
            recorder.hold(.init(chunk: heldChunk, device: device, receivedAt: receivedAt, traceParent: traceParent, countdown: countdowns?.record))
        }
        await dependencies.outputs.publish(messages, as: routed.publication, countdown: countdowns?.outputs)
        if let result { span?.end(result, messages: messages) }
        dependencies.operations.derived(messages, receivedAt: receivedAt)
        // Before the frame's own part is done: the history may hold the record until written.
        dependencies.history.record(messages, receivedAt: receivedAt, holding: countdowns?.record)
        // A rejected frame is done once processed: its error may sit in an aggregate until the
        // window's report, but holding its record for that would let one device's garbage pin
        // the journal (docs/reliability.md: a crash costs at most one window's error counts).
        countdowns?.record.partDone()
        // Counted once its messages are handed over, so a test (or an operator) that sees the
        // count also sees what the frame produced.
        if let result { dependencies.metrics.record(result) }
    }

    /// A recorder upload replayed from the journal of a device another instance holds by now:
    /// history, not device state, so it is stored all the same (the store drops samples it holds
    /// already), judged against the device's stored state (its access and authorization), and
    /// nothing is published (the holder publishes for the device). Its record is let go once
    /// stored, or held with it for a retry like any chunk.
    private mutating func storeReplayedUpload(_ routed: RoutedFrame, processor: inout FrameProcessor) async {
        guard let device = routed.device else { return }
        let resident = processor.isResident(device)
        if !resident { await deviceStates.stored.restoreForJudging(device, into: &processor) }
        let (result, _) = evaluate(routed, processor: &processor)
        if !resident { processor.forget(device) }
        guard case .recorderAccelerometer(let chunk)? = result?.frame else {
            routed.release?.now()
            return
        }
        let stored = await recorder.store(chunk, device: device, receivedAt: routed.frame.receivedAt) != nil
        let countdowns = routed.release?.countdowns(messages: [], durable: nil, snapshotted: false, heldChunk: !stored)
        if !stored {
            recorder.hold(.init(chunk: chunk, device: device, receivedAt: routed.frame.receivedAt, traceParent: routed.frame.traceParent, countdown: countdowns?.record))
        }
        countdowns?.record.partDone()
    }

    /// Publishes what a clock tick, a policy change or the final flush at shutdown produced
    /// (aggregated error reports, timeouts, tremor minutes), by each device's role now; with
    /// the tick's time `now` they go to the event history too (no journal record to hold).
    private func flush(_ messages: [OutboundMessage], at now: Double? = nil) async {
        await dependencies.outputs.publish(messages, as: .current, countdown: nil)
        if let now { dependencies.history.record(messages, receivedAt: now, holding: nil) }
    }
}
