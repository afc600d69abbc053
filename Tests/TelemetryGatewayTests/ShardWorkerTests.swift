@testable import GatewayJournal
import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import Ownership
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// One shard's worker without a broker: a frame's journal record is released only once its
/// outputs are acknowledged; frames are processed in queue order.
@Suite("Shard worker without a broker")
struct ShardWorkerTests {
    @Test("records stay until the broker acknowledges the frame's outputs; outputs go out in queue order")
    func releaseOnAcknowledgement() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let journal = try InboundJournal(path: directory.appendingPathComponent("journal.bin").path, capacity: 1 << 20, clock: SystemGatewayClock())
        let broker = ScriptedBroker(acknowledgeAtOnce: false)
        let queue = HandoffQueue<WorkItem>(capacity: 64, clock: SystemGatewayClock())
        let devices = (0..<5).map { "worker-\($0)" }
        for device in devices {
            let record = JournalRecord(
                topic: "wearables/\(device)/status", payload: Array(#"{"state":"online"}"#.utf8), contentType: nil, retained: false,
                receivedAt: 1_000, traceparent: nil)
            guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { Issue.record("not journaled"); return }
            _ = queue.push(.frame(WorkerHarness.routed(record, ticket: ticket, journal: journal)), bytes: record.payload.count, maxWait: 0)
        }
        queue.close()
        var worker = try WorkerHarness.worker(broker: broker, journal: journal, queue: queue)
        await worker.run()

        #expect(broker.sentTopics == devices.map { "gateway/\($0)/connection" })
        #expect(journal.statistics.liveRecords == 5, "processed but not acknowledged: every record kept")
        broker.acknowledgeAll()
        #expect(journal.statistics.liveRecords == 0, "acknowledged: released")
    }

    @Test("a frame received while its partition was held, processed after the loss was heard of: published under the epoch it came under, and its record released once acknowledged")
    func frameReceivedAsOwnerOutlivesTheLoss() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let journal = try InboundJournal(path: directory.appendingPathComponent("journal.bin").path, capacity: 1 << 20, clock: SystemGatewayClock())
        let broker = ScriptedBroker(acknowledgeAtOnce: false)
        let queue = HandoffQueue<WorkItem>(capacity: 64, clock: SystemGatewayClock())
        // An ownership that has never held anything (no heartbeat ran): every role is `.none` now,
        // as in an instance that heard its partitions were lost while their frames were queued.
        let ownership = LeasedOwnership(
            store: UnreachableLeaseStore(), member: LeaseMember(name: "gw-a", incarnation: "run-1"), timing: LeaseHolder.Timing(ttl: 3, margin: 0.75, warmup: 1),
            heartbeat: 1, clock: SystemGatewayClock(), logger: Logger(label: "worker-test"))
        let device = "moving-watch"
        #expect(ownership.role(of: device) == .none)
        let record = JournalRecord(
            topic: "wearables/\(device)/status", payload: Array(#"{"state":"online"}"#.utf8), contentType: nil, retained: false, receivedAt: 1_000,
            traceparent: nil)
        guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { Issue.record("not journaled"); return }
        _ = queue.push(
            .frame(WorkerHarness.routed(record, ticket: ticket, journal: journal, publication: Publication(role: .owner(epoch: 7)))), bytes: record.payload.count,
            maxWait: 0)
        let lost = PartitionMove(
            change: .lost(partition: ownership.partitions.partition(of: device)), devices: [], retained: [], partitions: ownership.partitions)
        _ = queue.push(.partitionMoved(lost), bytes: 0, maxWait: 0)
        // A frame that arrived after the loss was heard of is not the worker's to publish.
        let late = JournalRecord(
            topic: "wearables/\(device)/status", payload: Array(#"{"state":"offline"}"#.utf8), contentType: nil, retained: false, receivedAt: 1_001,
            traceparent: nil)
        _ = queue.push(.frame(WorkerHarness.routed(late, ticket: nil, journal: journal, publication: .current)), bytes: late.payload.count, maxWait: 0)
        queue.close()
        var worker = try WorkerHarness.worker(broker: broker, journal: journal, queue: queue, ownership: ownership)
        await worker.run()

        let sent = broker.sentMessages
        #expect(sent.map(\.topic) == ["gateway/\(device)/connection"])
        #expect(sent.first?.properties.userProperties.map { "\($0.name)=\($0.value)" } == ["instance=gw-a", "epoch=7"])
        #expect(journal.statistics.liveRecords == 1)
        broker.acknowledgeAll()
        #expect(journal.statistics.liveRecords == 0, "acknowledged: released")
    }

    @Test("clustered, a head-pose reset command (no outputs) settles its frame's broker acknowledgement once processed, as a frame does")
    func resetCommandSettlesItsAcknowledgement() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let journal = try InboundJournal(path: directory.appendingPathComponent("journal.bin").path, capacity: 1 << 20, clock: SystemGatewayClock())
        let broker = ScriptedBroker(acknowledgeAtOnce: true)
        let queue = HandoffQueue<WorkItem>(capacity: 64, clock: SystemGatewayClock())
        let acknowledgements = AcknowledgementsAfterOutputs(bound: .seconds(30), factory: NOOPMetricsHandler.instance)
        let device = try #require(DeviceID("reset-watch"))
        let record = JournalRecord(
            topic: TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway").headphoneResetPoseTopic(device), payload: [], contentType: nil,
            retained: false, receivedAt: 1_000, traceparent: nil)
        guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { Issue.record("not journaled"); return }
        // What the clustered gate does for a journaled frame of a held device it lets through.
        acknowledgements.opened(ticket.sequence)
        #expect(acknowledgements.decide(groupReadAt: .now, waitingAtMost: .milliseconds(1)) == .undecided)
        let routed = RoutedFrame(
            frame: InboundFrame(record, sequence: ticket.sequence), command: .resetPose(device), shard: 0,
            release: FrameRelease(ticket: ticket, journal: journal, acknowledgements: acknowledgements), publication: .current)
        _ = queue.push(.frame(routed), bytes: record.topic.utf8.count, maxWait: 0)
        queue.close()
        var worker = try WorkerHarness.worker(broker: broker, journal: journal, queue: queue)
        await worker.run()

        #expect(acknowledgements.decide(groupReadAt: .now, waitingAtMost: .milliseconds(1)) == .acknowledge, "settled: the group's PUBACKs may leave")
        #expect(journal.statistics.liveRecords == 0, "no device state kept: the record goes once processed")
    }
}
