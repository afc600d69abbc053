import CoreMetrics
import Logging
import MQTTTransport
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
        /// Where outputs go; acknowledgements release journal records.
        let publisher: OutboundPublisher
        /// The inbound journal whose records the worker releases; nil without one.
        let journal: InboundJournal?
        /// Stores recorder chunks and publishes tremor minutes.
        let recorder: RecorderRuntime
        let metrics: GatewayMetrics
        /// Health beats, the fleet view and latency histograms.
        let operations: GatewayOperations
        let logger: Logger
        /// What the worker does when partitioned mode moves a device here or away.
        let handover: any DeviceHandover
        /// Membership and ownership of clustered modes; nil in single mode.
        let cluster: ClusterRuntime?
        /// Spans of processed frames; nil while export is off (`tracing.otlpEndpoint`).
        let tracing: FrameTracing?
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
    /// Recorder chunks whose store write failed, retried on ticks.
    private var recorderRetries: RecorderRetryQueue

    /// A worker for `shard` of `shardCount`, taking its items from `queue`.
    init(shard: Int, shardCount: Int, queue: HandoffQueue<WorkItem>, deviceStates: DeviceStateKeeper, dependencies: Dependencies) {
        self.shard = shard
        self.queue = queue
        self.deviceStates = deviceStates
        self.dependencies = dependencies
        router = ShardRouter(shardCount: shardCount)
        recorderRetries = RecorderRetryQueue(maximumBytes: Self.heldRecorderBytes / max(1, shardCount))
    }

    /// The bytes of recorder chunks all shards together hold for a failing store.
    static let heldRecorderBytes = 64 << 20

    /// Runs until the queue is closed and empty, or the task is cancelled (drain deadline): then
    /// the frames not yet processed are counted and stay in the journal for the next start.
    mutating func run() async {
        var processor = FrameProcessor(configuration: dependencies.processor)
        await deviceStates.load(router: router)
        // The tremor minutes of this shard's devices: owned here, like their derivation state.
        var tremorSchedule = dependencies.recorder.makeSchedule()
        // Partitioned mode: devices processed for their state only (the next owner warming up).
        var shadows = ShadowDevices()
        // Partitioned mode: devices released here and not gained again. A frame of one routed
        // just before its release (the plan can change on another thread than the router's)
        // is not applied: the device's next owner receives it too.
        var released = Set<DeviceID>()
        let health = dependencies.operations.health
        while let batch = await queue.next() {
            health.beat("worker-\(shard)", every: 0.5)  // ticks arrive twice a second
            for item in batch {
                if Task.isCancelled {
                    switch item {
                    case .frame, .replayed: dependencies.metrics.framesLeftInJournal.increment()
                    default: break
                    }
                    continue
                }
                switch item {
                case .frame(let frame, let ticket):
                    if !released.isEmpty, let device = device(of: frame), released.contains(device) {
                        dependencies.cluster?.metrics.framesNotOwned.increment()
                        if let ticket { dependencies.journal?.release(ticket) }
                        continue
                    }
                    await process(frame, ticket: ticket, processor: &processor, schedule: &tremorSchedule)
                case .replayed(let frame, let ticket):
                    await process(frame, ticket: ticket, replayed: true, processor: &processor, schedule: &tremorSchedule)
                case .tick(let now, let instant):
                    await flush(deviceStates.stamp(shadows.visible(processor.flush(now: now))), at: now)
                    await deviceStates.persist(&processor, now: now, at: instant)
                    released.formUnion(fence(processor: &processor, shadows: &shadows))
                    if let cluster = dependencies.cluster {
                        for device in deviceStates.unfence(after: cluster.reclaimDelay, at: instant, owned: { cluster.gate.owns($0) }) {
                            dependencies.logger.notice("\(device): fenced for \(cluster.reclaimDelay) s and still this instance's by its ownership plan; claimed again at its next frame")
                        }
                    }
                    await retryRecorder(at: instant, schedule: &tremorSchedule)
                    await flush(deviceStates.stamp(await dependencies.recorder.tick(now: now, schedule: &tremorSchedule)), at: now)
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
                    await dependencies.publisher.publish(processor.replaceAccessPolicy(policy, date: date))
                case .handover(let change):
                    switch change {
                    case .gained(let device, _, _): released.remove(device)
                    case .lost(let device): released.insert(device)
                    case .promoted: break
                    }
                    await handOver(change, processor: &processor, shadows: &shadows)
                case .claimNotice(let device, let owner):
                    // The next owner's claim of a device this instance was handing over is the
                    // switch: the device is let go here (released, not fenced).
                    if deviceStates.verdict(on: device, claimedBy: owner) == .fence, dependencies.cluster?.handedOver(device) == true {
                        handOver(device, to: owner, processor: &processor, shadows: &shadows)
                        released.insert(device)
                    } else if deviceStates.noticed(device, claimedBy: owner) == .fence {
                        released.formUnion(fence(processor: &processor, shadows: &shadows))
                    }
                case .shadow(let frame):
                    if !released.isEmpty, let device = device(of: frame), released.contains(device) { continue }
                    _ = processor.process(frame)
                }
            }
            // The context frames of this batch, in the store before the next batch is taken.
            await deviceStates.persistContext(processor)
        }
        if !Task.isCancelled {
            // Report what the open error windows still hold before stopping.
            await flush(deviceStates.stamp(shadows.visible(processor.finish())))
            await deviceStates.persist(&processor, now: nil, at: nil)
            _ = fence(processor: &processor, shadows: &shadows)
        }
        health.retire("worker-\(shard)")
        dependencies.logger.debug("worker \(shard) stopped")
    }

    /// Runs a hand-over item. Clustered with a store, a device is claimed before anything is
    /// published for it: gained as owner (restored from the claim's snapshot with the shared
    /// store), or promoted after its warm-up; a lost one's claim is let go. A device gained at a
    /// replayed journal record that another instance owns by now is not claimed: its replayed
    /// records are not applied.
    private mutating func handOver(_ change: HandoverChange, processor: inout FrameProcessor, shadows: inout ShadowDevices) async {
        var storeRestored = false
        switch change {
        case .gained(let device, let kept, let shadow):
            if deviceStates.claimsOwnership {
                processor.forget(device)
                if shadow {
                    storeRestored = await deviceStates.warmUp(device, into: &processor)
                } else if kept.replayed, let owner = await deviceStates.supersedingOwner(of: device) {
                    dependencies.logger.notice(
                        "\(device): the journal records replayed from the previous run are not applied: \(owner.instance) owns it since (epoch \(owner.epoch)) (gateway_cluster_replay_superseded_total)"
                    )
                    return
                } else {
                    let claimed = await deviceStates.claim(device, into: &processor)
                    storeRestored = claimed.restored
                    await republish(claimed.republish, of: device)
                }
            }
        case .promoted(let device):
            if deviceStates.claimsOwnership { await republish(await deviceStates.claim(device, into: &processor).republish, of: device) }
        case .lost(let device):
            if deviceStates.claimsOwnership { await deviceStates.release(device, processor: processor) }
        }
        let messages = change.apply(dependencies.handover, to: &processor, shadows: &shadows, storeRestored: storeRestored)
        await dependencies.publisher.publish(deviceStates.stamp(messages))
    }

    /// Stops publishing for the devices another instance claimed since (their fenced snapshot
    /// write was refused, or the store notified the claim): their state is let go like a lost
    /// device's, and nothing of them is applied here until the ownership plan gives them back
    /// and they are claimed again. A device this instance was handing over to that instance (a
    /// write refused between the next owner's claim and its notification) is handed over
    /// instead, quietly.
    /// - Returns: the devices handed over (their frames still queued are dropped).
    private mutating func fence(processor: inout FrameProcessor, shadows: inout ShadowDevices) -> [DeviceID] {
        var handed: [DeviceID] = []
        for (device, fencing) in deviceStates.takeFenced().sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if fencing.cause == .refusedWrite, dependencies.cluster?.handedOver(device) == true {
                handOver(device, to: fencing.owner, processor: &processor, shadows: &shadows)
                handed.append(device)
                continue
            }
            forget(device, processor: &processor, shadows: &shadows)
            let how =
                switch fencing.cause {
                case .refusedWrite: "the store refused this instance's snapshot write"
                case .notified: "the store notified a claim"
                }
            dependencies.logger.warning(
                "\(device): \(how), \(fencing.owner.instance) claimed the device since (epoch \(fencing.owner.epoch)); nothing more is published for it here until the ownership plan gives it back (gateway_cluster_fenced_total)"
            )
        }
        return handed
    }

    /// The claim of `owner`, the device's next owner, ends this instance's part: the switch of a
    /// join or a drain (``OwnershipGate``). Its state is let go; its claim here is dropped.
    private mutating func handOver(_ device: DeviceID, to owner: DeviceOwnership, processor: inout FrameProcessor, shadows: inout ShadowDevices) {
        deviceStates.handedOver(device)
        forget(device, processor: &processor, shadows: &shadows)
        dependencies.logger.debug("\(device): handed over to \(owner.instance), which claimed it (epoch \(owner.epoch))")
    }

    /// Lets go of a device's state like a lost device's, without publishing what that yields.
    private func forget(_ device: DeviceID, processor: inout FrameProcessor, shadows: inout ShadowDevices) {
        _ = dependencies.handover.lost(device, processor: &processor)  // what it returns is not published
        processor.forget(device)
        shadows.remove(device)
    }

    /// Publishes the outputs a restored snapshot carries that the broker had not acknowledged;
    /// they stay with the device's snapshots until acknowledged this time.
    private func republish(_ restored: (sequence: UInt64, messages: [OutboundMessage])?, of device: DeviceID) async {
        guard let restored else { return }
        let unacknowledged = deviceStates.unacknowledged
        let acknowledged = ReleaseCountdown(parts: restored.messages.count) { unacknowledged.acknowledged(device, sequence: restored.sequence) }
        await dependencies.publisher.publish(restored.messages, countdown: acknowledged)
    }

    private mutating func process(
        _ frame: InboundFrame, ticket: JournalTicket?, replayed: Bool = false, processor: inout FrameProcessor, schedule: inout TremorMinuteSchedule
    ) async {
        let topic = frame.parsedTopic ?? dependencies.scheme.parseInbound(frame.topic)
        if case .device(let device, let stream) = topic {
            // Clustered: a fenced device's frames (and a superseded device's replayed records)
            // are neither applied nor published; they are counted and their records let go.
            if deviceStates.blocks(device, replayed: replayed) {
                if replayed && stream == .recorderAccelerometer {
                    await storeSupersededUpload(frame, of: device, ticket: ticket, processor: &processor, schedule: &schedule)
                } else if let ticket {
                    dependencies.journal?.release(ticket)
                }
                return
            }
            // Claimed before anything is published for it (a device owned without a hand-over
            // item: a superseded device's first live frame, a fenced device given back).
            if deviceStates.needsClaim(device) { await republish(await deviceStates.claim(device, into: &processor).republish, of: device) }
            // Outputs the stored state's frames made and the broker never acknowledged: those
            // frames are not applied again, so their outputs go out from here.
            await republish(await deviceStates.restoreIfDormant(device, into: &processor), of: device)
        }
        // Export on: the frame's span, whose context its messages carry instead of the frame's.
        guard let span = dependencies.tracing?.begin(frame, topic: topic) else {
            await apply(frame, topic: topic, ticket: ticket, span: nil, processor: &processor, schedule: &schedule)
            return
        }
        // The span is the task's current context meanwhile, so what is logged for the frame
        // carries its trace_id and span_id (JSONLogHandler.spanMetadata).
        await ServiceContext.$current.withValue(span.span.context) {
            await apply(frame, topic: topic, ticket: ticket, span: span, processor: &processor, schedule: &schedule)
        }
    }

    /// Processes a frame whose device (if any) may be processed here, publishes its outputs
    /// and sets up the release of its journal record.
    private mutating func apply(
        _ frame: InboundFrame, topic: InboundTopic, ticket: JournalTicket?, span: FrameSpan?, processor: inout FrameProcessor,
        schedule: inout TremorMinuteSchedule
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
            if recorderRetries.isEmpty,
                let tremor = await dependencies.recorder.store(chunk, device: device, receivedAt: frame.receivedAt, schedule: &schedule)
            {
                messages += tremor.map { $0.carrying(routed.traceParent) }
            } else {
                heldChunk = chunk
            }
        }
        messages = deviceStates.stamp(messages)
        let journal = dependencies.journal
        // Parts: the outputs acknowledged, the frame processed, for a frame that may change its
        // device's snapshot the snapshot written after it stored, and for a held recorder chunk
        // its store write.
        let parts = 2 + (snapshotted ? 1 : 0) + (heldChunk != nil ? 1 : 0)
        let countdown = ticket.map { ticket in ReleaseCountdown(parts: parts) { journal?.release(ticket) } }
        if snapshotted, let countdown { deviceStates.holdUntilSnapshot(countdown) }
        if let heldChunk, case .device(let device, _) = topic {
            hold(.init(chunk: heldChunk, device: device, receivedAt: frame.receivedAt, traceParent: routed.traceParent, countdown: countdown))
        }
        var outputs: ReleaseCountdown?
        if let countdown, let ticket {
            // Until acknowledged, a device's outputs travel with its snapshot (see UnacknowledgedOutputs).
            var durableDevice: DeviceID?
            if case .device(let id, _) = topic, deviceStates.isDurable {
                durableDevice = id
                deviceStates.unacknowledged.register(id, sequence: ticket.sequence, messages)
            }
            let device = durableDevice
            let unacknowledged = deviceStates.unacknowledged
            outputs = ReleaseCountdown(parts: messages.count) {
                if let device { unacknowledged.acknowledged(device, sequence: ticket.sequence) }
                countdown.partDone()
            }
        }
        await dependencies.publisher.publish(messages, countdown: outputs)
        // Clustered: a context frame's effect goes to the store at the end of this batch, for a
        // successor after a death.
        if case .device(let device, let stream) = topic, ContextCache.streams.contains(stream) {
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

    /// The device a frame is from, if it is a device's.
    private func device(of frame: InboundFrame) -> DeviceID? {
        guard case .device(let device, _) = frame.parsedTopic ?? dependencies.scheme.parseInbound(frame.topic) else { return nil }
        return device
    }

    /// A recorder upload replayed from the journal of a device another instance owns by now:
    /// history, not device state, so it is stored all the same (the store drops samples it holds
    /// already), judged against the device's stored state (its access and authorization), and
    /// nothing is published (the owner publishes for the device). Its record is let go once
    /// stored, or held with it for a retry like any chunk.
    private mutating func storeSupersededUpload(
        _ frame: InboundFrame, of device: DeviceID, ticket: JournalTicket?, processor: inout FrameProcessor, schedule: inout TremorMinuteSchedule
    ) async {
        let resident = processor.isResident(device)
        if !resident { await deviceStates.restoreForJudging(device, into: &processor) }
        let result = processor.process(frame)
        if !resident { processor.forget(device) }
        let journal = dependencies.journal
        let countdown = ticket.map { ticket in ReleaseCountdown(parts: 1) { journal?.release(ticket) } }
        guard case .recorderAccelerometer(let chunk)? = result.frame else {
            countdown?.partDone()
            return
        }
        if recorderRetries.isEmpty, await dependencies.recorder.store(chunk, device: device, receivedAt: frame.receivedAt, schedule: &schedule) != nil {
            countdown?.partDone()
        } else {
            hold(.init(chunk: chunk, device: device, receivedAt: frame.receivedAt, traceParent: frame.traceParent, countdown: countdown))
        }
    }

    /// Holds a recorder chunk for a retry; a chunk let go beyond the held bytes' bound keeps its
    /// journal record (its countdown never completes) for the next start.
    private mutating func hold(_ chunk: RecorderRetryQueue.Held) {
        let metrics = dependencies.recorder.metrics
        metrics.heldChunks.increment()
        for dropped in recorderRetries.hold(chunk) {
            metrics.heldChunks.decrement()
            metrics.chunksLeftInJournal.increment()
            dependencies.logger.warning(
                "recorder chunk of \(dropped.device) let go of after \(recorderRetries.maximumBytes) bytes held for the failing store; \(dropped.countdown == nil ? "without a journal record it is lost" : "its journal record is replayed at the next start") (gateway_recorder_chunks_left_in_journal_total)"
            )
        }
    }

    /// Stores held recorder chunks again, oldest first, once their retry is due; stops at the
    /// first failure. A stored chunk's journal record is let go and its tremor minutes published.
    private mutating func retryRecorder(at instant: SuspendingClock.Instant, schedule: inout TremorMinuteSchedule) async {
        guard recorderRetries.isDue(at: instant) else { return }
        let recorder = dependencies.recorder
        while let next = recorderRetries.first {
            recorder.metrics.storeRetries.increment()
            guard let tremor = await recorder.store(next.chunk, device: next.device, receivedAt: next.receivedAt, schedule: &schedule) else {
                recorderRetries.failed(at: instant)
                return
            }
            recorderRetries.storedFirst()
            recorder.metrics.heldChunks.decrement()
            await flush(deviceStates.stamp(tremor.map { $0.carrying(next.traceParent) }), at: next.receivedAt)
            next.countdown?.partDone()
        }
    }

    /// Publishes what a clock tick (or the final flush at shutdown) produced: aggregated error
    /// reports, timeouts, tremor minutes; with the tick's time `now` they go to the event
    /// history too (no journal record to hold).
    private func flush(_ messages: [OutboundMessage], at now: Double? = nil) async {
        await dependencies.publisher.publish(messages)
        if let now { dependencies.history.record(messages, receivedAt: now, holding: nil) }
    }
}
