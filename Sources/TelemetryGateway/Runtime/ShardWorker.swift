import GatewayJournal
import CoreMetrics
import Logging
import MQTTTransport
import Ownership
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
        let scheme: TopicScheme
        /// The publisher, for its retained-state cache.
        let publisher: OutboundPublisher
        /// Where outputs go (published at once, or once fenced: ``OutputSink``); acknowledgements
        /// release journal records.
        let outputs: any OutputSink
        /// The inbound journal whose records the worker releases; nil without one.
        let journal: InboundJournal?
        /// Stores recorder chunks and publishes tremor minutes.
        let recorder: RecorderRuntime
        let metrics: GatewayMetrics
        /// Health beats, the fleet view and latency histograms.
        let operations: GatewayOperations
        let logger: Logger
        /// Who publishes for which device (every device in single mode): outputs pass through it.
        let ownership: any OwnershipPort
        let ownershipMetrics: OwnershipMetrics
        /// Spans of processed frames; nil while export is off (`tracing.otlpEndpoint`).
        let tracing: FrameTracing?
        /// Where held recorder chunks' retries are scheduled and the drain deadline is waited for.
        let clock: any GatewayClock
        /// Where derived events go for the event history (docs/history.md).
        var history: any EventHistory = NoEventHistory()
        /// The most frame bytes one shard keeps waiting for their devices' stored state.
        var restoreWaitLimitBytes = 4 << 20
        /// Clustered: settled as each frame's outputs are published, so its PUBACK may leave.
        var acknowledgements: AcknowledgementsAfterOutputs?
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
    /// Frames of devices whose stored state the store did not give yet.
    private var waiting: RestoreWaitingFrames

    /// A worker for `shard` of `shardCount`, taking its items from `queue`.
    init(shard: Int, shardCount: Int, queue: HandoffQueue<WorkItem>, deviceStates: DeviceStateKeeper, dependencies: Dependencies) {
        self.shard = shard
        self.queue = queue
        self.deviceStates = deviceStates
        self.dependencies = dependencies
        router = ShardRouter(shardCount: shardCount)
        waiting = RestoreWaitingFrames(limitBytes: dependencies.restoreWaitLimitBytes)
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
                    switch item {
                    case .frame, .replayed, .replayedUpload: dependencies.metrics.framesLeftInJournal.increment()
                    default: break
                    }
                    continue
                }
                switch item {
                case .frame(let frame, let ticket, let role):
                    await process(frame, ticket: ticket, receivedAs: role, processor: &processor)
                case .replayed(let frame, let ticket):
                    await process(frame, ticket: ticket, receivedAs: nil, processor: &processor)
                case .replayedUpload(let frame, let ticket):
                    await storeReplayedUpload(frame, ticket: ticket, processor: &processor)
                case .tick(let now, let instant):
                    await retryWaiting(processor: &processor, at: instant)
                    await flush(dependencies.ownership.visible(processor.flush(now: now)), at: now)
                    await deviceStates.persist(&processor, now: now, at: instant)
                    for stored in await recorder.retry(at: instant) {
                        await flush(dependencies.ownership.visible(stored.messages), at: stored.receivedAt)
                        stored.countdown?.partDone()
                    }
                    await flush(dependencies.ownership.visible(await recorder.tick(now: now)), at: now)
                case .resetPose(let device, let receivedAt, let retained, let ticket):
                    let reset = processor.resetHeadphonePose(of: device, at: receivedAt, retained: retained)
                    if reset { dependencies.logger.debug("reset the head pose reference of \(device)") }
                    // The new reference lives in the device's snapshot: the command's record waits for it.
                    if let ticket, let journal = dependencies.journal {
                        if reset && deviceStates.isDurable {
                            deviceStates.holdUntilSnapshot(ReleaseCountdown(parts: 1) { journal.release(ticket) })
                        } else {
                            journal.release(ticket)
                        }
                    }
                case .relieveJournal:
                    await deviceStates.persistNow(&processor)
                    dependencies.journal?.relieved(shard: shard)
                case .policy(let policy, let date):
                    await dependencies.outputs.publish(processor.replaceAccessPolicy(policy, date: date), countdown: nil)
                case .ownership(let change, let devices, let retained):
                    await changeOwnership(change, devices: devices, retained: retained, processor: &processor)
                case .shadow(let frame):
                    // A warming partition's device: its stored state first, nothing published;
                    // its retained state is kept (announced again only once owned).
                    // Without it (the store not answering) the frame is left to its holder: processed
                    // on a fresh state it would make the device start fresh here for good.
                    if case .device(let device, _) = frame.parsedTopic ?? dependencies.scheme.parseInbound(frame.topic),
                        case .pending = await deviceStates.stored.restoreIfDormant(device, into: &processor, at: dependencies.clock.monotonicNow())
                    {
                        dependencies.ownershipMetrics.framesUnrestored.increment()
                        continue
                    }
                    let messages = processor.process(frame).messages
                    messages.forEach(dependencies.publisher.retained.record)
                    dependencies.outputs.warmed(messages)
                }
            }
            // The context frames of this batch, in the store before the next batch is taken.
            await deviceStates.persistContext(processor)
        }
        // Frames still waiting for their device's stored state stay in the journal for the next start.
        countWaitingAsLeft()
        if !Task.isCancelled {
            // Report what the open error windows still hold before stopping.
            await flush(dependencies.ownership.visible(processor.finish()))
            await deviceStates.persist(&processor, now: nil, at: nil)
        }
        health.retire("worker-\(shard)")
        dependencies.logger.debug("worker \(shard) stopped")
    }

    /// A partition changed hands. Gained or warming: its devices listed from the store are
    /// restored at their first frame here (one already in memory, warmed up, keeps its state);
    /// gained, the retained messages their snapshots carry are taken for the topics this
    /// instance has none of (a warmed-up device's own are newer). Lost: every device of the
    /// partition in memory is let go (its next holder continues from the store), and its
    /// devices' retained messages are forgotten here.
    private mutating func changeOwnership(_ change: OwnershipChange, devices: [DeviceID], retained: [OutboundMessage], processor: inout FrameProcessor) async {
        dependencies.outputs.ownershipChanged(change)
        switch change {
        case .gained, .warming:
            deviceStates.stored.awaitRestore(devices.filter { !processor.isResident($0) })
            if case .gained = change { dependencies.publisher.retained.restore(retained) }
        case .lost(let partition):
            let partitions = dependencies.ownership.partitions
            // Frames that came while it was held are processed by the role they arrived under:
            // with the stored state if the store answers now, else without it.
            await retryWaiting(processor: &processor, at: dependencies.clock.monotonicNow())
            await giveUpWaiting(waiting.devices.filter { partitions.partition(of: $0.rawValue) == partition }, processor: &processor)
            let leaving = processor.residentDevices.filter { partitions.partition(of: $0.rawValue) == partition }
            await deviceStates.forgetPartition(partition, partitions: partitions, leaving: leaving, processor: processor)
            for device in leaving { processor.forget(device) }
            dependencies.publisher.retained.forget(partition: partition) { [router, shard] in router.shard(forRoutingKey: $0.rawValue) == shard }
            dependencies.ownershipMetrics.devicesLost.increment(by: leaving.count)
        }
    }

    /// Publishes the outputs a restored snapshot carries that the broker had not acknowledged;
    /// they stay with the device's snapshots until acknowledged this time.
    private func republish(_ restored: (sequence: UInt64, messages: [OutboundMessage])?, of device: DeviceID) async {
        guard let restored else { return }
        let unacknowledged = deviceStates.unacknowledged
        // Clustered, stamped by this holder (so the ledger fences them, and withholds those the
        // holder that stored them had published after all).
        let messages = dependencies.ownership.visible(restored.messages)
        let acknowledged = ReleaseCountdown(parts: messages.count) { unacknowledged.acknowledged(device, sequence: restored.sequence) }
        await dependencies.outputs.publish(messages, countdown: acknowledged)
    }

    /// Processes a frame; `role` is its device's role when it arrived (nil for a replayed one).
    private mutating func process(
        _ frame: InboundFrame, ticket: JournalTicket?, receivedAs role: DeviceRole?, processor: inout FrameProcessor
    ) async {
        let topic = frame.parsedTopic ?? dependencies.scheme.parseInbound(frame.topic)
        if case .device(let device, _) = topic {
            // Behind its earlier frames that wait for its stored state.
            if waiting.contains(device) {
                await wait(.init(frame: frame, ticket: ticket, role: role), of: device, processor: &processor)
                return
            }
            switch await deviceStates.stored.restoreIfDormant(device, into: &processor, at: dependencies.clock.monotonicNow()) {
            case .done(let restored):
                // Outputs the stored state's frames made and the broker never acknowledged: those
                // frames are not applied again, so their outputs go out from here.
                await republish(restored, of: device)
            case .pending:
                deviceStates.metrics.restoreWaits.increment()
                await wait(.init(frame: frame, ticket: ticket, role: role), of: device, processor: &processor)
                return
            }
        }
        await processRestored(frame, topic: topic, ticket: ticket, receivedAs: role, processor: &processor)
    }

    /// Keeps a frame waiting for its device's stored state; past the bound every waiting device
    /// is given up on (processed without it), and so is this frame's.
    private mutating func wait(_ frame: RestoreWaitingFrames.Waiting, of device: DeviceID, processor: inout FrameProcessor) async {
        if waiting.fits(frame.frame) {
            waiting.append(frame, of: device)
            return
        }
        let waited = waiting.devices
        await giveUpWaiting(waited, processor: &processor)
        if !waited.contains(device) { await giveUpWaiting([device], processor: &processor) }
        await processRestored(frame.frame, topic: nil, ticket: frame.ticket, receivedAs: frame.role, processor: &processor)
    }

    /// Tries the restores of the devices whose frames wait, oldest first, and processes the
    /// frames of each restored one; stops at the first the store does not answer.
    private mutating func retryWaiting(processor: inout FrameProcessor, at now: SuspendingClock.Instant) async {
        for device in waiting.devices {
            guard case .done(let restored) = await deviceStates.stored.restoreIfDormant(device, into: &processor, at: now) else { return }
            await republish(restored, of: device)
            for item in waiting.take(device) {
                await processRestored(item.frame, topic: nil, ticket: item.ticket, receivedAs: item.role, processor: &processor)
            }
        }
    }

    /// Processes the waiting frames of `devices` without their stored state (they start fresh), counted and logged.
    private mutating func giveUpWaiting(_ devices: [DeviceID], processor: inout FrameProcessor) async {
        for device in devices {
            deviceStates.stored.giveUp(device)
            deviceStates.metrics.restoresAbandoned.increment()
            let frames = waiting.take(device)
            dependencies.logger.warning("the stored state of \(device) could not be read; \(frames.count) waiting frames are processed without it (it starts fresh)")
            for item in frames {
                await processRestored(item.frame, topic: nil, ticket: item.ticket, receivedAs: item.role, processor: &processor)
            }
        }
    }

    /// Counts the frames that wait for their device's stored state as left in the journal (a stop).
    private mutating func countWaitingAsLeft() {
        for device in waiting.devices {
            dependencies.metrics.framesLeftInJournal.increment(by: waiting.take(device).count)
        }
    }

    /// Processes a frame whose device's stored state, if any, is restored.
    private mutating func processRestored(
        _ frame: InboundFrame, topic parsed: InboundTopic?, ticket: JournalTicket?, receivedAs role: DeviceRole?, processor: inout FrameProcessor
    ) async {
        let topic = parsed ?? frame.parsedTopic ?? dependencies.scheme.parseInbound(frame.topic)
        // Export on: the frame's span, whose context its messages carry instead of the frame's.
        guard let span = dependencies.tracing?.begin(frame, topic: topic) else {
            await apply(frame, topic: topic, ticket: ticket, receivedAs: role, span: nil, processor: &processor)
            return
        }
        // The span is the task's current context meanwhile, so what is logged for the frame
        // carries its trace_id and span_id (JSONLogHandler.spanMetadata).
        await ServiceContext.$current.withValue(span.span.context) {
            await apply(frame, topic: topic, ticket: ticket, receivedAs: role, span: span, processor: &processor)
        }
    }

    /// Processes a frame whose device (if any) may be processed here, publishes its outputs
    /// and sets up the release of its journal record.
    private mutating func apply(
        _ frame: InboundFrame, topic: InboundTopic, ticket: JournalTicket?, receivedAs role: DeviceRole?, span: FrameSpan?, processor: inout FrameProcessor
    ) async {
        var routed = frame
        routed.parsedTopic = topic
        if let traceParent = span?.traceParent { routed.traceParent = traceParent }
        let result = processor.process(routed)
        // Only a frame whose effect lives in its device's snapshot waits for that snapshot's
        // write; a rejected one, or one that changed nothing kept, goes once its outputs are
        // acknowledged.
        let snapshotted = deviceStates.isDurable && result.changesSnapshot
        var messages = result.messages
        var heldChunk: RecordedAccelerometerChunk?
        if case .recorderAccelerometer(let chunk)? = result.frame, case .device(let device, _) = topic {
            // Stored before the frame is counted, so a query after the count sees it. Behind
            // held chunks, or when the store fails, it is held too (retried on ticks).
            if let tremor = await recorder.store(chunk, device: device, receivedAt: frame.receivedAt) {
                messages += tremor.map { $0.carrying(routed.traceParent) }
            } else {
                heldChunk = chunk
            }
        }
        // By the role at arrival: a frame that came while this instance held its device is
        // published even if the partition was lost before this worker got to it.
        messages = dependencies.ownership.visible(messages, receivedAs: role)
        var durable: (DeviceID, UnacknowledgedOutputs)?
        if case .device(let device, _) = topic, deviceStates.isDurable { durable = (device, deviceStates.unacknowledged) }
        let release = FrameRelease(
            ticket: ticket, journal: dependencies.journal, messages: messages, durable: durable, snapshotted: snapshotted, heldChunk: heldChunk != nil,
            acknowledgements: dependencies.acknowledgements)
        let countdown = release.record
        if snapshotted, let countdown { deviceStates.holdUntilSnapshot(countdown) }
        if let heldChunk, case .device(let device, _) = topic {
            recorder.hold(.init(chunk: heldChunk, device: device, receivedAt: frame.receivedAt, traceParent: routed.traceParent, countdown: countdown))
        }
        await dependencies.outputs.publish(messages, countdown: release.outputs)
        // Clustered: a context frame's effect goes to the store at the end of this batch, for a
        // successor after a death.
        if case .device(let device, let stream) = topic, DeviceStateKeeper.contextStreams.contains(stream) {
            deviceStates.contextChanged(device)
        }
        span?.end(result, messages: messages)
        dependencies.operations.derived(messages, receivedAt: frame.receivedAt)
        // Before the frame's own part is done: the history may hold the record until written.
        dependencies.history.record(messages, receivedAt: frame.receivedAt, holding: countdown)
        // A rejected frame is done once processed: its error may sit in an aggregate until the
        // window's report, but holding its record for that would let one device's garbage pin
        // the journal (docs/reliability.md: a crash costs at most one window's error counts).
        countdown?.partDone()
        // Counted once its messages are handed over, so a test (or an operator) that sees the
        // count also sees what the frame produced.
        dependencies.metrics.record(result)
    }

    /// A recorder upload replayed from the journal of a device another instance holds by now:
    /// history, not device state, so it is stored all the same (the store drops samples it holds
    /// already), judged against the device's stored state (its access and authorization), and
    /// nothing is published (the holder publishes for the device). Its record is let go once
    /// stored, or held with it for a retry like any chunk.
    private mutating func storeReplayedUpload(_ frame: InboundFrame, ticket: JournalTicket, processor: inout FrameProcessor) async {
        guard case .device(let device, _) = dependencies.scheme.parseInbound(frame.topic) else { return }
        let resident = processor.isResident(device)
        if !resident { await deviceStates.stored.restoreForJudging(device, into: &processor) }
        let result = processor.process(frame)
        if !resident { processor.forget(device) }
        let journal = dependencies.journal
        let countdown = ReleaseCountdown(parts: 1) { journal?.release(ticket) }
        guard case .recorderAccelerometer(let chunk)? = result.frame else {
            countdown.partDone()
            return
        }
        if await recorder.store(chunk, device: device, receivedAt: frame.receivedAt) != nil {
            countdown.partDone()
        } else {
            recorder.hold(.init(chunk: chunk, device: device, receivedAt: frame.receivedAt, traceParent: frame.traceParent, countdown: countdown))
        }
    }

    /// Publishes what a clock tick (or the final flush at shutdown) produced: aggregated error
    /// reports, timeouts, tremor minutes; with the tick's time `now` they go to the event
    /// history too (no journal record to hold).
    private func flush(_ messages: [OutboundMessage], at now: Double? = nil) async {
        await dependencies.outputs.publish(messages, countdown: nil)
        if let now { dependencies.history.record(messages, receivedAt: now, holding: nil) }
    }
}
