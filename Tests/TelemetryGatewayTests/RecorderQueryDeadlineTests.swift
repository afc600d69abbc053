import BrokerTestSupport
import CoreMetrics
import Foundation
import GatewayTime
import Locking
import Logging
import MQTTTransport
import RecorderStore
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// A recorder query over a store that stops answering: the requester gets a `storeUnavailable`
/// error once a read's deadline passed on the gateway's clock, and the query task is free again.
@Suite struct RecorderQueryDeadlineTests {
    @Test("an accelerometer query the store never answers: a storeUnavailable error naming the deadline, not before it passed")
    func storeThatNeverAnswers() async throws {
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let store = SilentRecorderStore()
        let runtime = RecorderRuntime(
            configuration: GatewayConfiguration(), store: store, scheme: TopicScheme(), logger: Logger(label: "recorder-deadline"),
            metrics: RecorderMetrics(factory: NOOPMetricsHandler.instance), clock: clock)
        let request = RecorderRequest(
            device: DeviceID("watch-1")!, requester: "app", payload: Array(#"{"from":1799999000,"to":1800000000}"#.utf8),
            responseTopic: RecorderReplyCheck.replyPrefix(for: "app") + "/answers", correlationData: Array("q1".utf8), receivedAt: 1_800_000_000)
        let sent = LockedState<[MQTTMessage]>([])
        let answering = Task { await runtime.answer(request) { message, _ in sent.withLock { $0.append(message) } } }
        let asleep = ContinuousClock.now + .seconds(60)  // generous: parallel suites on two cores can keep new tasks waiting for seconds
        while store.reads == 0 || clock.sleepers == 0 {
            guard ContinuousClock.now < asleep else {
                Issue.record("the read never reached the store")
                answering.cancel()
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        clock.advance(by: runtime.queryDeadline - 1)
        #expect(sent.withLock { $0.isEmpty }, "nothing answered before the deadline")
        clock.advance(by: 1)
        await answering.value
        let answers = sent.withLock { $0 }
        #expect(answers.count == 1)
        let text = String(decoding: answers.first?.payload ?? [], as: UTF8.self)
        #expect(text.contains("storeUnavailable") && text.contains("did not answer within 10.0 s"), "\(text)")
        #expect(answers.first?.properties.correlationData == Array("q1".utf8))
    }
}

/// A recorder store whose reads never return (a frozen server): they wait until cancelled.
private final class SilentRecorderStore: RecorderStoring {
    struct Unused: Error {}
    private let calls = NeverAnsweringCalls()
    var reads: Int { calls.count }
    var location: String { "silent" }
    private func hang<T>() async throws -> T { try await calls.hang() }
    func insert(_ chunk: RecordedAccelerometerChunk, device: DeviceID) async throws -> RecorderInsertOutcome { throw Unused() }
    func setNextTremorMinute(_ minute: Double, device: DeviceID) async throws { throw Unused() }
    func prune(before cutoff: Double, maximumSamples: Int) async throws -> RecorderPruneOutcome { throw Unused() }
    func samples(of device: DeviceID, from: Double, to: Double, after cursor: StoredRecorderSample?, limit: Int) async throws -> [StoredRecorderSample] {
        try await hang()
    }
    func samples(of device: DeviceID, from: Double, before end: Double) async throws -> [RecordedAccelerometerSample] { try await hang() }
    func minutesWithData(of device: DeviceID, from: Double, before end: Double) async throws -> [Double] { try await hang() }
    func deviceState(of device: DeviceID) async throws -> RecorderDeviceState? { throw Unused() }
    func statistics() async throws -> RecorderStatistics { throw Unused() }
}
