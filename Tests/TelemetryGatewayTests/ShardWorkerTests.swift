import CoreMetrics
import Foundation
import Logging
import MQTTTransport
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
            var frame = InboundFrame(topic: record.topic, payload: record.payload, receivedAt: record.receivedAt)
            frame.journalSequence = ticket.sequence
            _ = queue.push(.frame(frame, ticket), bytes: record.payload.count, maxWait: 0)
        }
        queue.close()
        var worker = try WorkerHarness.worker(broker: broker, journal: journal, queue: queue)
        await worker.run()

        #expect(broker.sentTopics == devices.map { "gateway/\($0)/connection" })
        #expect(journal.statistics.liveRecords == 5, "processed but not acknowledged: every record kept")
        broker.acknowledgeAll()
        #expect(journal.statistics.liveRecords == 0, "acknowledged: released")
    }
}
