import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import Prometheus
import RecorderStore
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// One shard's worker in a clustered mode, on the real SQLite store and without a broker
/// (docs/scale-out.md, *Fencing*): a device is claimed before anything is published for it, a
/// refused fenced write stops its publishing at once, and replayed journal records of a device
/// another instance owns are not applied. Two store objects on one file stand for two instances
/// sharing a store.
@Suite("Ownership fencing in the shard worker")
struct OwnershipFencingTests {
    /// One worker of instance `instance` over `store`, with its journal, broker and metrics.
    struct Setup {
        let broker = ScriptedBroker(acknowledgeAtOnce: true)
        let queue = HandoffQueue<WorkItem>(capacity: 64, clock: SystemGatewayClock())
        let registry = PrometheusCollectorRegistry()
        let journal: InboundJournal
        let store: DeviceStateStore
        /// The same file as another instance's store.
        let other: DeviceStateStore
        let worker: ShardWorker

        init(instance: String = "a", cluster: ClusterRuntime? = nil) throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fencing-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            journal = try InboundJournal(path: directory.appendingPathComponent("journal.bin").path, capacity: 1 << 20, clock: SystemGatewayClock())
            let path = directory.appendingPathComponent("state.sqlite").path
            store = try DeviceStateStore(path: path)
            other = try DeviceStateStore(path: path)
            worker = try WorkerHarness.worker(
                broker: broker, journal: journal, queue: queue, factory: PrometheusMetricsFactory(registry: registry), store: store, instance: instance,
                cluster: cluster)
        }

        /// Queues a journaled status frame of `device` (replayed: a record of an earlier run).
        func status(_ device: String, _ state: String, at time: Double, replayed: Bool = false) throws {
            let record = JournalRecord(
                topic: "wearables/\(device)/status", payload: Array(#"{"state":"\#(state)"}"#.utf8), contentType: nil, retained: false,
                receivedAt: time, traceparent: nil)
            guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { throw TestFailure("not journaled") }
            var frame = InboundFrame(topic: record.topic, payload: record.payload, receivedAt: record.receivedAt)
            frame.journalSequence = ticket.sequence
            push(replayed ? .replayed(frame, ticket) : .frame(frame, ticket))
        }

        func push(_ item: WorkItem) { _ = queue.push(item, bytes: 64, maxWait: 0) }

        /// Runs the worker on a task of its own and sends the device's first frame; returns the
        /// task and the device's ownership once its output is published (claimed by then: the
        /// claim comes first).
        func runClaimingDevice() async throws -> (running: Task<Void, Never>, claimed: DeviceOwnership) {
            let worker = worker
            let running = Task {
                var worker = worker
                await worker.run()
            }
            try status("fence-watch", "online", at: 1_000)
            await broker.wait { steps in steps.contains { if case .sent("gateway/fence-watch/connection", _) = $0 { true } else { false } } }
            guard let claimed = try await store.owner(of: OwnershipFencingTests.device) else { throw TestFailure("fence-watch was not claimed") }
            return (running, claimed)
        }

        /// The messages published about `device`.
        func sent(about device: String) -> [MQTTMessage] { broker.sentMessages.filter { $0.topic.hasPrefix("gateway/\(device)/") } }

        func metric(_ name: String) -> String {
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return String(decoding: buffer, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }.map(String.init) ?? "\(name) absent"
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func property(_ name: String, of message: MQTTMessage) -> String? {
        message.properties.userProperties.first { $0.name == name }?.value
    }

    static let device = DeviceID("fence-watch")!

    @Test("a device is claimed before its first output, and every output carries the claim's instance and epoch")
    func claimBeforePublish() async throws {
        let setup = try Setup()
        // Another instance owned the device before: this one's claim must take a greater epoch.
        let earlier = try await setup.other.claim(Self.device, instance: "b")
        try setup.status("fence-watch", "online", at: 1_000)
        try setup.status("fence-watch", "offline", at: 1_001)
        setup.queue.close()
        var worker = setup.worker
        await worker.run()

        let owner = try await setup.store.owner(of: Self.device)
        #expect(owner?.instance == "a")
        #expect((owner?.epoch ?? 0) > earlier.epoch)
        let outputs = setup.sent(about: "fence-watch")
        #expect(outputs.count == 2, "both status frames published: \(outputs.map(\.topic))")
        for message in outputs {
            // An output published before the claim could not carry the claim's epoch.
            #expect(Self.property("instance", of: message) == "a")
            #expect(Self.property("epoch", of: message) == owner.map { String($0.epoch) })
        }
        #expect(setup.metric("gateway_cluster_claims_total") == "gateway_cluster_claims_total 1")
    }

    @Test("a refused fenced write stops publishing for the device at once, counted; other devices go on")
    func refusedWriteFences() async throws {
        let setup = try Setup()
        let (running, claimed) = try await setup.runClaimingDevice()
        // Another instance takes the device over: the store makes it the owner under a greater epoch.
        let takeover = try await setup.other.claim(Self.device, instance: "b")
        #expect(takeover.epoch > claimed.epoch)
        try setup.status("fence-watch", "offline", at: 1_001)  // changes the snapshot: written at the next due tick
        let start = SuspendingClock.now
        setup.push(.tick(1_001, start))  // starts the snapshot clock
        setup.push(.tick(1_002, start + .seconds(10)))  // the write is due: refused
        try setup.status("fence-watch", "online", at: 1_003)
        try setup.status("other-watch", "online", at: 1_003)
        setup.queue.close()
        await running.value

        let outputs = setup.sent(about: "fence-watch")
        // The offline frame came before the refusal (published under the old epoch); nothing after it.
        #expect(outputs.count == 2, "\(outputs.map { "\($0.topic) \($0.payloadString)" })")
        #expect(outputs.allSatisfy { Self.property("epoch", of: $0) == String(claimed.epoch) })
        #expect(setup.sent(about: "other-watch").count == 1, "another device is not affected")
        #expect(setup.metric(#"gateway_cluster_fenced_total{cause="refusedWrite"}"#) == #"gateway_cluster_fenced_total{cause="refusedWrite"} 1"#)
        #expect(setup.metric("gateway_cluster_fenced_frames_total") == "gateway_cluster_fenced_frames_total 1")
        #expect(try await setup.store.owner(of: Self.device) == DeviceOwnership(instance: "b", epoch: takeover.epoch), "the refused instance did not claim it back")
        #expect(setup.journal.statistics.liveRecords == 0, "the fenced device's frame was let go of, not kept")
    }

    @Test("a notified claim of another instance under a greater epoch stops publishing for the device at once, in order with its frames, counted; own and older claims change nothing")
    func notifiedClaimFences() async throws {
        let setup = try Setup()
        let (running, claimed) = try await setup.runClaimingDevice()
        // Its own claim's notification, and an older claim's (committed before this one), are ignored.
        setup.push(.claimNotice(Self.device, claimed))
        setup.push(.claimNotice(Self.device, DeviceOwnership(instance: "b", epoch: claimed.epoch - 1)))
        setup.push(.claimNotice(DeviceID("unknown-watch")!, DeviceOwnership(instance: "b", epoch: 99)))
        try setup.status("fence-watch", "offline", at: 1_001)  // published: nothing fenced yet
        // A status frame is a context frame, written (fenced) at the end of its batch: the take-over
        // comes only after that write, once a later batch (another device's frame) was published.
        await setup.broker.wait { steps in steps.filter { if case .sent("gateway/fence-watch/connection", _) = $0 { true } else { false } }.count == 2 }
        try setup.status("marker-watch", "online", at: 1_001)
        await setup.broker.wait { steps in steps.contains { if case .sent("gateway/marker-watch/connection", _) = $0 { true } else { false } } }
        let takeover = try await setup.other.claim(Self.device, instance: "b")
        setup.push(.claimNotice(Self.device, DeviceOwnership(instance: "b", epoch: takeover.epoch)))
        // No tick and no context write after the take-over before the notice: the notice alone fences.
        try setup.status("fence-watch", "online", at: 1_002)
        try setup.status("other-watch", "online", at: 1_002)
        setup.push(.claimNotice(Self.device, DeviceOwnership(instance: "b", epoch: takeover.epoch)))  // repeated (owner check): counted once
        setup.queue.close()
        await running.value

        let outputs = setup.sent(about: "fence-watch")
        #expect(outputs.count == 2, "online and offline before the notice, nothing after: \(outputs.map { "\($0.topic) \($0.payloadString)" })")
        #expect(outputs.allSatisfy { Self.property("epoch", of: $0) == String(claimed.epoch) })
        #expect(setup.sent(about: "other-watch").count == 1, "another device is not affected")
        #expect(setup.metric(#"gateway_cluster_fenced_total{cause="notified"}"#) == #"gateway_cluster_fenced_total{cause="notified"} 1"#)
        #expect(setup.metric(#"gateway_cluster_fenced_total{cause="refusedWrite"}"#) == #"gateway_cluster_fenced_total{cause="refusedWrite"} 0"#)
        #expect(setup.metric("gateway_cluster_fenced_frames_total") == "gateway_cluster_fenced_frames_total 1")
        #expect(try await setup.store.owner(of: Self.device) == DeviceOwnership(instance: "b", epoch: takeover.epoch), "the fenced instance did not claim it back")
    }

    /// A clustered runtime for instance a (warm-up 1 s) whose gate hands over a device moving to
    /// b: a owned it alone, b joined at 2, a frame came during b's warm-up, a switched at 3.
    /// Its metrics go to `registry`.
    static func handingOverCluster(registry: PrometheusCollectorRegistry) -> (cluster: ClusterRuntime, device: DeviceID) {
        var configuration = GatewayConfiguration()
        configuration.cluster.mode = .partitioned
        configuration.cluster.instance = "a"
        configuration.cluster.handoverWarmup = 1  // the times below stay within cluster.expiry (5 s) of the last echo
        let cluster = ClusterRuntime(
            configuration: configuration, scheme: TopicScheme(), metrics: ClusterMetrics(factory: PrometheusMetricsFactory(registry: registry)),
            startedAt: 0, clock: ManualGatewayClock(wallTime: 0))
        let name = OwnershipGateTests.devices(ownedBy: "b", among: ["a", "b"])[0]
        cluster.view.setSelf(.online, at: 0)
        let (frame, key) = OwnershipGateTests.frame(name, "status", at: 1)
        #expect(cluster.gate.admit(frame, key: key, inbound: true).owned)
        cluster.view.announce("b", .online, at: 2)
        let (during, _) = OwnershipGateTests.frame(name, "status", at: 2.5)
        #expect(cluster.gate.admit(during, key: key, inbound: true).owned, "shared with b while b warms up")
        _ = cluster.gate.planChanged(cluster.view.plan(at: 3))
        #expect(cluster.gate.handingOver == [name])
        return (cluster, DeviceID(name)!)
    }

    /// Waits until `device`'s `state` status was published and then a frame of `marker`, queued
    /// after it, too: the batch that held the status, and its snapshot write, are over.
    static func afterBatch(of device: String, _ state: String, marker: String, setup: Setup) async throws {
        await setup.broker.wait { steps in
            steps.contains { if case .sent(let topic, let payload) = $0 { topic.hasPrefix("gateway/\(device)/") && payload.contains(#""\#(state)""#) } else { false } }
        }
        try setup.status(marker, "online", at: 1_000)
        await setup.broker.wait { steps in steps.contains { if case .sent(let topic, _) = $0 { topic.hasPrefix("gateway/\(marker)/") } else { false } } }
    }

    /// Runs the worker of `setup` and sends the device's first status, waiting until that batch
    /// and its snapshot write are over (a status frame is a context frame, written fenced at the
    /// end of its batch: a claim made before would refuse that write).
    static func runWithDevice(_ name: String, setup: Setup) async throws -> Task<Void, Never> {
        let running = Task { [worker = setup.worker] in
            var worker = worker
            await worker.run()
        }
        try setup.status(name, "online", at: 1_000)
        try await afterBatch(of: name, "online", marker: "marker-1", setup: setup)
        return running
    }

    static func emitted(_ registry: PrometheusCollectorRegistry) -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test("the next owner's notified claim of a device this instance is handing over lets it go: not fenced, counted as handed over, nothing published after it, its subscription and gate entry gone")
    func notifiedClaimHandsOver() async throws {
        let clusterRegistry = PrometheusCollectorRegistry()
        let (cluster, device) = Self.handingOverCluster(registry: clusterRegistry)
        let name = device.rawValue
        let setup = try Setup(cluster: cluster)
        let running = try await Self.runWithDevice(name, setup: setup)
        let claimed = try #require(try await setup.store.owner(of: device))
        let takeover = try await setup.other.claim(device, instance: "b")
        setup.push(.claimNotice(device, DeviceOwnership(instance: "b", epoch: takeover.epoch)))
        try setup.status(name, "offline", at: 1_001)
        try setup.status("other-watch", "online", at: 1_001)
        setup.queue.close()
        await running.value

        let outputs = setup.sent(about: name)
        #expect(outputs.count == 1, "online before the claim, nothing after: \(outputs.map { "\($0.topic) \($0.payloadString)" })")
        #expect(outputs.allSatisfy { Self.property("epoch", of: $0) == String(claimed.epoch) })
        #expect(setup.sent(about: "other-watch").count == 1, "another device is not affected")
        #expect(setup.metric(#"gateway_cluster_fenced_total{cause="notified"}"#) == #"gateway_cluster_fenced_total{cause="notified"} 0"#, "a hand-over is not a fencing")
        #expect(Self.emitted(clusterRegistry).contains("gateway_cluster_handed_over_total 1\n"))
        #expect(cluster.gate.handingOver.isEmpty)
        #expect(!cluster.gate.handedOver(device, plan: cluster.view.plan(at: 3)), "the gate holds nothing of it any more")
        #expect(try await setup.store.owner(of: device) == DeviceOwnership(instance: "b", epoch: takeover.epoch), "a did not claim it back")
        #expect(setup.journal.statistics.liveRecords == 0, "the frame after the hand-over was let go of")
    }

    @Test("a snapshot write refused between the next owner's claim and its notification hands the device over too: nothing published after it, the gate entry gone, no fencing left behind")
    func refusedWriteHandsOver() async throws {
        let clusterRegistry = PrometheusCollectorRegistry()
        let (cluster, device) = Self.handingOverCluster(registry: clusterRegistry)
        let name = device.rawValue
        let setup = try Setup(cluster: cluster)
        let running = try await Self.runWithDevice(name, setup: setup)
        let takeover = try await setup.other.claim(device, instance: "b")  // its notification is late
        try setup.status(name, "offline", at: 1_001)  // its write, at the end of its batch, is refused
        try await Self.afterBatch(of: name, "offline", marker: "marker-2", setup: setup)
        setup.push(.tick(1_002, SuspendingClock.now))  // the worker learns of the refusal
        try setup.status(name, "online", at: 1_003)
        setup.push(.claimNotice(device, DeviceOwnership(instance: "b", epoch: takeover.epoch)))  // the late notification: nothing more to do
        setup.queue.close()
        await running.value

        let outputs = setup.sent(about: name)
        #expect(outputs.count == 2, "online and offline before the refusal, nothing after: \(outputs.map { "\($0.topic) \($0.payloadString)" })")
        #expect(Self.emitted(clusterRegistry).contains("gateway_cluster_handed_over_total 1\n"))
        #expect(cluster.gate.handingOver.isEmpty, "let go: not kept (and subscribed) for ever")
        #expect(setup.metric("gateway_cluster_fenced_frames_total") == "gateway_cluster_fenced_frames_total 0", "dropped as not owned, not as fenced")
        #expect(try await setup.store.owner(of: device) == DeviceOwnership(instance: "b", epoch: takeover.epoch), "a did not claim it back")
        #expect(setup.journal.statistics.liveRecords == 0, "the frame after the hand-over was let go of")
    }

    @Test("replayed journal records of a device another instance owns are not applied; its next live frame claims it")
    func replaySuperseded() async throws {
        let setup = try Setup()
        let takeover = try await setup.other.claim(Self.device, instance: "b")
        try await _ = setup.other.save(fenced: [FencedSnapshot(device: Self.device, epoch: takeover.epoch, snapshot: DeviceSnapshot(lastSeen: 2_000, access: nil, connection: nil, derivations: nil))])
        // What the gate queues at a replayed record of a device not held yet, then the records.
        setup.push(.handover(.gained(Self.device, .init(context: [], replayed: true), shadow: false)))
        try setup.status("fence-watch", "online", at: 1_000, replayed: true)
        try setup.status("fence-watch", "offline", at: 1_001, replayed: true)
        setup.push(.handover(.gained(DeviceID("own-watch")!, .init(context: [], replayed: true), shadow: false)))
        try setup.status("own-watch", "online", at: 1_000, replayed: true)
        // The first live frame: the ownership plan gives the device to this instance now.
        try setup.status("fence-watch", "online", at: 3_000)
        setup.queue.close()
        var worker = setup.worker
        await worker.run()

        let outputs = setup.sent(about: "fence-watch")
        #expect(outputs.count == 1, "state older than the store's is never published, only the live frame's: \(outputs.map(\.payloadString))")
        #expect(setup.sent(about: "own-watch").count == 1, "a device nobody else owns is claimed and its records applied")
        let owner = try #require(try await setup.store.owner(of: Self.device))
        #expect(owner.instance == "a" && owner.epoch > takeover.epoch, "claimed at the live frame, not at the replayed ones")
        #expect(outputs.first.flatMap { Self.property("epoch", of: $0) } == String(owner.epoch))
        #expect(try await setup.store.owner(of: DeviceID("own-watch")!)?.instance == "a")
        #expect(setup.metric("gateway_cluster_replay_superseded_total") == "gateway_cluster_replay_superseded_total 2")
        #expect(setup.journal.statistics.liveRecords == 0, "the superseded records are let go of")
    }

    @Test("a context frame of a claimed device is in the store at the end of its batch, fenced under its claim, before any snapshot tick: a successor after a death finds it")
    func contextFrameWrittenAtOnce() async throws {
        let setup = try Setup()
        setup.push(.handover(.gained(Self.device, .init(context: []), shadow: false)))
        try setup.status("fence-watch", "online", at: 1_000)
        var worker = setup.worker
        let running = Task { await worker.run() }
        @Sendable func sent(_ device: String) -> @Sendable ([ScriptedBroker.Step]) -> Bool {
            { steps in steps.contains { if case .sent(let topic, _) = $0 { topic == "gateway/\(device)/connection" } else { false } } }
        }
        // Its output is out, so the worker took that batch; another device's frame queued now is
        // in a later batch, taken only after the first batch's writes (no tick is ever queued).
        await setup.broker.wait(until: sent("fence-watch"))
        try setup.status("marker-watch", "online", at: 1_001)
        await setup.broker.wait(until: sent("marker-watch"))

        let stored = try #require(try await setup.other.snapshot(of: Self.device), "the status frame's snapshot is in the store without a tick")
        #expect(stored.connection == .connected)
        let owner = try #require(try await setup.other.owner(of: Self.device))
        #expect(owner.instance == "a")
        setup.queue.close()
        await running.value
        #expect(setup.metric("gateway_cluster_context_writes_total") == "gateway_cluster_context_writes_total 2")
    }

    @Test("a device gained as owner continues from the claim's snapshot, the previous owner's last write")
    func gainRestoresTheClaimsSnapshot() async throws {
        let setup = try Setup()
        let previous = try await setup.other.claim(Self.device, instance: "b")
        let written = try await setup.other.save(fenced: [
            FencedSnapshot(device: Self.device, epoch: previous.epoch, snapshot: DeviceSnapshot(lastSeen: 1_000, access: nil, connection: .connected, derivations: nil))
        ])
        #expect(written.isEmpty)
        let fresh = DeviceID("fresh-watch")!
        for device in [Self.device, fresh] {
            setup.push(.handover(.gained(device, .init(context: []), shadow: false)))
        }
        // Online again: no change for a device whose state says connected already.
        try setup.status("fence-watch", "online", at: 1_001)
        try setup.status("fresh-watch", "online", at: 1_001)
        try setup.status("fence-watch", "offline", at: 1_002)
        setup.queue.close()
        var worker = setup.worker
        await worker.run()

        let outputs = setup.sent(about: "fence-watch")
        #expect(outputs.map(\.payloadString).map { $0.contains("disconnected") } == [true], "only the change from the restored state: \(outputs.map(\.payloadString))")
        #expect(setup.sent(about: "fresh-watch").count == 1, "a device without a stored snapshot starts fresh")
        let owner = try #require(try await setup.store.owner(of: Self.device))
        #expect(owner.instance == "a" && owner.epoch > previous.epoch)
        #expect(outputs.first.flatMap { Self.property("epoch", of: $0) } == String(owner.epoch))
    }
}
