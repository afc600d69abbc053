@testable import GatewayJournal
import CoreMetrics
import Ownership
import Foundation
import Logging
import MQTTTransport
import Prometheus
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The subscriber's handler without a broker: what it journals, where it routes, what time it
/// stamps, and what it does once the queues are closed.
@Suite("Inbound router without a broker")
struct InboundRouterTests {
    struct Setup {
        let router: InboundRouter
        let queues: [HandoffQueue<WorkItem>]
        let journal: InboundJournal
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let registry = PrometheusCollectorRegistry()

        init(shards: Int = 4) throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("router-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            journal = try InboundJournal(path: directory.appendingPathComponent("journal.bin").path, capacity: 1 << 20, clock: SystemGatewayClock())
            queues = (0..<shards).map { _ in HandoffQueue<WorkItem>(capacity: 256, clock: SystemGatewayClock()) }
            var configuration = GatewayConfiguration()
            configuration.recorder.database = nil
            let logger = Logger(label: "router-test")
            let factory = PrometheusMetricsFactory(registry: registry)
            let metrics = GatewayMetrics(factory: factory, shards: shards)
            router = InboundRouter(
                scheme: TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway"), clock: clock, queues: queues, maximumHandoffWait: 0.01,
                journal: JournalAppender(
                    journal: journal, acknowledgements: nil, maximumWait: 0.01, metrics: metrics, clock: clock, logger: logger),
                recorder: RecorderRuntime(configuration: configuration, scheme: TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway"), logger: logger, metrics: RecorderMetrics(factory: factory),
                    clock: clock),
                queries: HandoffQueue<RecorderRequest>(capacity: 16, clock: SystemGatewayClock()), metrics: metrics,
                health: RuntimeHealth(stallTimeout: 30, now: { 0 }), gate: OpenGate(), logger: logger)
        }

        /// Every frame queued so far, per shard (closes the queues).
        func drain() async -> [[InboundFrame]] {
            var shards: [[InboundFrame]] = []
            for queue in queues {
                queue.close()
                var frames: [InboundFrame] = []
                while let batch = await queue.next() {
                    for case .frame(let routed) in batch { frames.append(routed.frame) }
                }
                shards.append(frames)
            }
            return shards
        }

        func metric(_ name: String) -> String {
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return String(decoding: buffer, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }.map(String.init) ?? ""
        }
    }

    static func frame(_ device: String, _ index: Int) -> MQTTMessage {
        MQTTMessage(topic: "wearables/\(device)/status", payload: Array(#"{"state":"online","n":\#(index)}"#.utf8), qos: .atLeastOnce, retain: false)
    }

    @Test("each device's frames go to one shard in arrival order, journaled, stamped with the clock's time")
    func routesInOrder() async throws {
        let setup = try Setup()
        let devices = (0..<10).map { "router-\($0)" }
        for index in 0..<3 {
            for device in devices { setup.router.receive(Self.frame(device, index)) }
            setup.clock.advance(by: 1)
        }
        #expect(setup.journal.statistics.liveRecords == 30, "every frame journaled before it is handed on")
        let shards = await setup.drain()
        #expect(shards.map(\.count).reduce(0, +) == 30)
        #expect(shards.filter { !$0.isEmpty }.count > 1, "ten devices spread over more than one of four shards")
        for device in devices {
            let holding = shards.filter { $0.contains { $0.topic.contains("/\(device)/") } }
            #expect(holding.count == 1, "\(device) in exactly one shard")
            let frames = holding.first?.filter { $0.topic.contains("/\(device)/") } ?? []
            #expect(frames.map(\.receivedAt) == [1_700_000_000, 1_700_000_001, 1_700_000_002], "arrival order and the clock's time")
            #expect(frames.allSatisfy { $0.journalSequence != nil })
        }
    }

    @Test("after the queues closed (shutdown), a frame is counted and its journal record kept for the next start")
    func closedQueues() async throws {
        let setup = try Setup(shards: 1)
        setup.queues[0].close()
        setup.router.receive(Self.frame("late-1", 0))
        #expect(setup.metric("gateway_handoff_after_close_total") == "gateway_handoff_after_close_total 1")
        #expect(setup.journal.statistics.liveRecords == 1)
    }
}
