import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

/// Tremor results end to end: a seeded 10-minute recording (tremor of known class and
/// frequency, voluntary movements, gaps, a duplicated and a reordered chunk) through a real
/// mosquitto; the published minutes are compared with the scenario's ground truth and with the
/// answer to a tremor query over the same range.
@Suite("Tremor results through a real broker")
struct TremorResultTests {
    /// The class with the largest fraction among none…strong (ties: the more severe, as TremorResult.predominantSeverity).
    private static func dominantClass(_ result: [String: Any]) -> String? {
        let classes = ["none", "slight", "mild", "moderate", "strong"]
        let fractions = classes.map { (result[$0] as? NSNumber)?.doubleValue ?? -1 }
        guard let best = fractions.indices.max(by: { fractions[$0] < fractions[$1] || (fractions[$0] == fractions[$1] && $0 < $1) }),
            fractions[best] > 0
        else { return nil }
        return classes[best]
    }

    @Test("every complete minute gets one result; ≥ 90 % of tremor minutes match the ground truth class; a query gives the same results")
    func tremorMinutes() async throws {
        let broker = try await TestBroker.started()
        var configuration = try GatewayHarness.configuration(broker: broker)
        configuration.recorder.tremorIdleTimeout = 1
        let run = try await GatewayRun.start(broker, configuration: configuration)
        // Two hours ago, so the whole recording is inside the retention window.
        let start = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 7200
        let scenario = TremorScenario(deviceId: "watch-tremor-1", seed: 8, startDate: start)
        var delivery = TremorScenario.Delivery()
        delivery.duplicateChunk = true
        delivery.reorderChunks = true
        let frames = scenario.frames(delivery: delivery)

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        for frame in frames {
            try await device.send(
                MQTTMessage(
                    topic: frame.topic(), payload: frame.payload, qos: .atLeastOnce, retain: frame.retain,
                    properties: .init(contentType: "application/json")))
        }
        #expect(await device.flush(timeout: 60))
        await device.shutdown()

        let topic = "gateway/watch-tremor-1/tremor"
        let minutesWithData = scenario.minutes.count
        let received = try await run.collector.wait(timeout: 60, "\(minutesWithData) tremor results") { messages in
            messages.filter { $0.topic == topic }.count >= minutesWithData
        }
        let results = received.filter { $0.topic == topic }.map(RecorderRequester.object)
        // One result per minute, in order, never twice.
        #expect(results.map { $0["startDate"] as? Double } == scenario.minutes.map(\.startDate))
        for result in results {
            let sum = ["unknown", "none", "slight", "mild", "moderate", "strong"].map { (result[$0] as? NSNumber)?.doubleValue ?? .nan }.reduce(0, +)
            #expect(abs(sum - 1) < 1e-9, "fractions of \(result["startDate"] ?? "?") sum to \(sum)")
        }
        let tremorMinutes = zip(scenario.minutes, results).filter { $0.0.severity.isTremor }
        let matching = tremorMinutes.filter { truth, result in Self.dominantClass(result) == truth.severity.rawValue }
        #expect(!tremorMinutes.isEmpty)
        #expect(
            Double(matching.count) >= 0.9 * Double(tremorMinutes.count),
            "\(matching.count) of \(tremorMinutes.count) tremor minutes match: \(tremorMinutes.map { "\($0.0.severity.rawValue)→\(Self.dominantClass($0.1) ?? "-")" })")
        for (truth, result) in tremorMinutes {
            guard let frequency = truth.frequency, let measured = (result["dominantFrequency"] as? NSNumber)?.doubleValue else { continue }
            #expect(abs(measured - frequency) <= 0.2, "minute \(truth.startDate): \(measured) Hz vs \(frequency) Hz")
        }

        // The same minutes on request, computed again from the store.
        let requester = try await RecorderRequester.connect(broker)
        let answers = try await requester.ask(
            "watch-tremor-1", #"{"from":\#(start),"to":\#(start + 600),"kind":"tremor"}"#, correlation: "tremor-1")
        let answered = answers.map(RecorderRequester.object).flatMap { $0["results"] as? [[String: Any]] ?? [] }
        #expect(answered.count == results.count)
        #expect(answered.map { $0["eventId"] as? String } == results.map { $0["eventId"] as? String })
        #expect(answered.map(Self.dominantClass) == results.map(Self.dominantClass))
        await requester.shutdown()
        try await run.stop()
    }
}
