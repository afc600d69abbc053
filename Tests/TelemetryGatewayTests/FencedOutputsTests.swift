import CoreMetrics
import Locking
import Logging
import MQTTTransport
import Ownership
import Testing

@testable import GatewayTime
@testable import TelemetryCore
@testable import TelemetryGateway

/// Clustered outputs published only once the output ledger recorded them under their
/// partition's lease, without a store or a broker: two holders of one partition around a
/// hand-over, a holder that lost its lease, the store away, and the outputs of a warm-up.
@Suite("Fenced outputs: published once, by the lease's holder", .timeLimit(.minutes(1)))
struct FencedOutputsTests {
    static let scheme = TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway")
    static let partitions = OwnershipPartitions()

    /// `change` as a worker hands it on.
    static func move(_ change: OwnershipChange) -> PartitionMove {
        PartitionMove(change: change, devices: [], retained: [], partitions: partitions)
    }

    /// One instance's fenced outputs over a scripted publisher.
    struct Instance {
        let member: LeaseMember
        let broker = ScriptedBroker(acknowledgeAtOnce: true)
        let outputs: FencedOutputs
        let task: Task<Void, Never>

        init(_ name: String, ledger: MemoryOutputLedger) throws {
            member = LeaseMember(name: name, incarnation: "\(name)-run")
            let clock = SystemGatewayClock()
            let logger = Logger(label: "fenced-\(name)")
            var configuration = GatewayConfiguration()
            configuration.recorder.database = nil
            let factory = NOOPMetricsHandler.instance
            let metrics = GatewayMetrics(factory: factory, shards: 1)
            let publisher = OutboundPublisher(
                client: try broker.connections.makePublisher(configuration.subscriberConfiguration(), logger) { _ in },
                retained: RetainedStateCache(limit: 1 << 20, evictions: metrics.retainedEvicted), metrics: metrics,
                operations: GatewayOperations(configuration: configuration, metricsFactory: factory, logger: logger, clock: clock), clock: clock, logger: logger)
            let ownership = LeasedOwnership(
                store: UnreachableLeaseStore(), member: member, timing: LeaseHolder.Timing(ttl: 6, margin: 1, warmup: 3), heartbeat: 1, clock: clock,
                logger: logger)
            let outputs = FencedOutputs(
                ledger: ledger, ownership: ownership, publisher: publisher, metrics: FencedOutputMetrics(factory: factory), drainSeconds: 5, clock: clock,
                logger: logger)
            self.outputs = outputs
            task = Task { await outputs.run() }
        }

        /// Waits until `count` messages were sent to the broker.
        func waitForSent(_ count: Int) async {
            await broker.wait { steps in steps.filter { if case .sent = $0 { true } else { false } }.count >= count }
        }

        var sentEventIDs: [String] {
            broker.sentMessages.map { HistoryEventFields(scanning: $0.payload).eventId ?? "-" }
        }
    }

    /// A swing of `device` with event id `id`, as the worker hands it over: stamped under `epoch`
    /// (as its owner) or not at all (warming).
    static func swing(_ device: String, _ id: String, epoch: Int64?, instance: String = "gw-a") -> OutboundMessage {
        var message = OutboundMessage(
            .swing, of: DeviceID(device)!, in: scheme, payload: Array(#"{"deviceId":"\#(device)","eventId":"\#(id)","contact":false}"#.utf8))
        if let epoch {
            message.userProperties = [UserProperty(name: "instance", value: instance), UserProperty(name: "epoch", value: String(epoch))]
        }
        return message
    }

    @Test("a hand-over's overlap: what the old holder recorded goes out once, from it; what came after, from the successor, in order")
    func handOverOverlap() async throws {
        let ledger = MemoryOutputLedger()
        let old = try Instance("gw-a", ledger: ledger)
        let successor = try Instance("gw-b", ledger: ledger)
        let partition = Self.partitions.partition(of: "watch-1")
        ledger.lease(partition, to: old.member, epoch: 4)

        // The successor warms up: it derives the same swings, publishing nothing yet.
        successor.outputs.partitionMoved(Self.move(.warming(partition: partition)))
        successor.outputs.warmed((1...4).map { Self.swing("watch-1", "s\($0)", epoch: nil) })
        // The old holder publishes s1 and s2 as the holder under epoch 4.
        let release = LockedState(0)
        let countdown = ReleaseCountdown(parts: 2) { release.withLock { $0 += 1 } }
        await old.outputs.publish([Self.swing("watch-1", "s1", epoch: 4), Self.swing("watch-1", "s2", epoch: 4)], as: Publication(role: .owner(epoch: 4)), countdown: countdown)
        await old.waitForSent(2)
        #expect(release.withLock { $0 } == 1, "the old holder's two outputs were acknowledged: its frame's part is done")

        // The successor accepts (epoch 5); the old holder has not heard of it and derives s3.
        ledger.lease(partition, to: successor.member, epoch: 5)
        let withheld = LockedState(0)
        await old.outputs.publish([Self.swing("watch-1", "s3", epoch: 4)], as: Publication(role: .owner(epoch: 4)), countdown: ReleaseCountdown(parts: 1) { withheld.withLock { $0 += 1 } })
        successor.outputs.partitionMoved(Self.move(.gained(partition: partition, epoch: 5)))
        await successor.outputs.publish([Self.swing("watch-1", "s5", epoch: 5, instance: "gw-b")], as: Publication(role: .owner(epoch: 5)), countdown: nil)
        await successor.waitForSent(3)
        // The old holder's s3 is withheld (fenced), yet its frame is released: the successor has it.
        while withheld.withLock({ $0 }) == 0 { await Task.yield() }

        #expect(old.sentEventIDs == ["s1", "s2"])
        #expect(successor.sentEventIDs == ["s3", "s4", "s5"], "the warm-up's outputs the old holder did not publish, then the successor's own, in order")
        #expect(successor.broker.sentMessages.allSatisfy { $0.properties.userProperties.contains(UserProperty(name: "epoch", value: "5")) })
        old.task.cancel()
        successor.task.cancel()
    }

    @Test("the store away: nothing is published until it answers, then everything in order, once")
    func storeAway() async throws {
        let ledger = MemoryOutputLedger()
        let holder = try Instance("gw-a", ledger: ledger)
        let partition = Self.partitions.partition(of: "watch-2")
        ledger.lease(partition, to: holder.member, epoch: 1)
        ledger.fail(true)
        for id in 1...5 { await holder.outputs.publish([Self.swing("watch-2", "t\(id)", epoch: 1)], as: Publication(role: .owner(epoch: 1)), countdown: nil) }
        // Several statements refused, nothing sent meanwhile.
        while ledger.calls < 3 { await Task.yield() }
        #expect(holder.broker.sentMessages.isEmpty)
        ledger.fail(false)
        await holder.waitForSent(5)
        #expect(holder.sentEventIDs == ["t1", "t2", "t3", "t4", "t5"])
        // The same output handed over again (a replayed frame) is not published twice.
        await holder.outputs.publish([Self.swing("watch-2", "t3", epoch: 1), Self.swing("watch-2", "t6", epoch: 1)], as: Publication(role: .owner(epoch: 1)), countdown: nil)
        await holder.waitForSent(6)
        #expect(holder.sentEventIDs == ["t1", "t2", "t3", "t4", "t5", "t6"])
        holder.task.cancel()
    }

    @Test("a statement that committed but whose answer was lost: the retry publishes its outputs once, a frame's later copy stays a duplicate")
    func answerLost() async throws {
        let ledger = MemoryOutputLedger()
        let holder = try Instance("gw-a", ledger: ledger)
        let partition = Self.partitions.partition(of: "watch-3")
        ledger.lease(partition, to: holder.member, epoch: 2)
        // The first two statements record and commit, but their replies never come (a store cut
        // mid-statement, or the record deadline passed); the third is answered.
        ledger.loseAnswers(2)
        for id in 1...3 { await holder.outputs.publish([Self.swing("watch-3", "u\(id)", epoch: 2)], as: Publication(role: .owner(epoch: 2)), countdown: nil) }
        await holder.waitForSent(3)
        #expect(ledger.calls >= 3)
        #expect(holder.sentEventIDs == ["u1", "u2", "u3"], "recorded by this run's own lost tries: published, once each, in order")
        // The same outputs derived again from a frame delivered again: other entries, not published.
        await holder.outputs.publish([Self.swing("watch-3", "u2", epoch: 2), Self.swing("watch-3", "u4", epoch: 2)], as: Publication(role: .owner(epoch: 2)), countdown: nil)
        await holder.waitForSent(4)
        #expect(holder.sentEventIDs == ["u1", "u2", "u3", "u4"])
        holder.task.cancel()
    }

    @Test("a holder whose lease was taken publishes nothing more for the partition, others' outputs and the gateway's own go on")
    func fencedHolder() async throws {
        let ledger = MemoryOutputLedger()
        let holder = try Instance("gw-a", ledger: ledger)
        let lost = Self.partitions.partition(of: "watch-3")
        let kept = Self.partitions.partition(of: "watch-4")
        #expect(lost != kept)
        ledger.lease(lost, to: LeaseMember(name: "gw-a", incarnation: "stand-in-run"), epoch: 2)
        ledger.lease(kept, to: holder.member, epoch: 2)
        let status = OutboundMessage(topic: "gateway/status", payload: Array("{}".utf8))
        await holder.outputs.publish([Self.swing("watch-3", "u1", epoch: 2), Self.swing("watch-4", "u2", epoch: 2), status], as: Publication(role: .owner(epoch: 2)), countdown: nil)
        await holder.waitForSent(2)
        #expect(holder.broker.sentTopics == ["gateway/watch-4/swing", "gateway/status"])
        holder.task.cancel()
    }
}

extension FencedOutputsTests {
    @Test("warm-up outputs: kept from the first warming report, not dropped by a later worker's report, queued under the gained epoch; a lost partition's let go; at most once not kept; the oldest go past the bound")
    func warmUpReports() {
        let stamp: ([OutboundMessage], Int64) -> [OutboundMessage] = { messages, epoch in
            messages.map { message in
                var stamped = message
                stamped.userProperties = [UserProperty(name: "epoch", value: String(epoch))]
                return stamped
            }
        }
        var queue = FenceQueue(partitions: Self.partitions, warmedLimit: 1 << 20)
        let kept = Self.partitions.partition(of: "watch-5")
        let dropped = Self.partitions.partition(of: "watch-6")
        #expect(kept != dropped)
        var pose = OutboundMessage(.headphonePose, of: DeviceID("watch-5")!, in: Self.scheme, payload: Array("{}".utf8))
        pose.qos = .atMostOnce
        // Before any warming report: nothing is kept (not this instance's to publish).
        _ = queue.warmed([Self.swing("watch-5", "v0", epoch: nil)], stamp: stamp)
        queue.changed(.warming(partition: kept), stamp: stamp)
        _ = queue.warmed([Self.swing("watch-5", "v1", epoch: nil), pose], stamp: stamp)
        // Another worker reports the same warm-up later: what was kept stays.
        queue.changed(.warming(partition: kept), stamp: stamp)
        _ = queue.warmed([Self.swing("watch-5", "v2", epoch: nil)], stamp: stamp)
        queue.changed(.warming(partition: dropped), stamp: stamp)
        _ = queue.warmed([Self.swing("watch-6", "x1", epoch: nil)], stamp: stamp)
        queue.changed(.lost(partition: dropped), stamp: stamp)
        #expect(queue.entries.isEmpty, "nothing queued before a partition is gained")
        queue.changed(.gained(partition: kept, epoch: 9), stamp: stamp)
        queue.changed(.gained(partition: kept, epoch: 9), stamp: stamp)
        queue.changed(.gained(partition: dropped, epoch: 3), stamp: stamp)
        let ids = queue.entries.flatMap(\.messages).map { HistoryEventFields(scanning: $0.payload).eventId ?? "-" }
        #expect(ids == ["v1", "v2"])
        #expect(queue.entries.flatMap(\.keys).allSatisfy { $0?.epoch == 9 && $0?.partition == kept })
        // Gained already: a frame that arrived warming and is processed after the change goes at once.
        _ = queue.warmed([Self.swing("watch-5", "v3", epoch: nil)], stamp: stamp)
        #expect(queue.entries.last?.keys.first??.eventID == "v3")

        var small = FenceQueue(partitions: Self.partitions, warmedLimit: 2 * FenceQueue.bytes(of: Self.swing("watch-5", "w1", epoch: nil)))
        small.changed(.warming(partition: kept), stamp: stamp)
        #expect(small.warmed((1...3).map { Self.swing("watch-5", "w\($0)", epoch: nil) }, stamp: stamp) == 1)
        small.changed(.gained(partition: kept, epoch: 1), stamp: stamp)
        #expect(small.entries.flatMap(\.messages).map { HistoryEventFields(scanning: $0.payload).eventId ?? "-" } == ["w2", "w3"])
    }
}
