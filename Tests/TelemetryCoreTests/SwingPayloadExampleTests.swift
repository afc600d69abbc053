import TelemetryCore
import TelemetrySimulation
import Testing

// TEMPORARY: prints example payloads for the docs.
@Suite struct SwingPayloadExampleTests {
    @Test func printExamples() {
        let scenario = SwingScenario(seed: 91, actions: [.idle(seconds: 1), .swing(contact: true), .swing(contact: false), .idle(seconds: 1)])
        var engine = DerivationEngine()
        let context = SwingDeriverTests.context()
        var out: [OutboundMessage] = []
        for frame in [SwingDeriverTests.workout(.running, "baseball")] + SwingDeriverTests.frames(scenario) { out += engine.receive(frame, context: context) }
        for m in out where m.topic.hasSuffix("/swing") { print("EXAMPLE", m.topic, m.payloadString) }
        print("TRUTH", scenario.groundTruth)
        let rally = TennisRallyScenario(seed: 94, wrist: .right, sequence: [.forehand, .backhand, .forehand])
        var engine2 = DerivationEngine()
        for frame in [SwingDeriverTests.workout(.running, "tennis")] + SwingDeriverTests.motionFrames(rally) {
            for m in engine2.receive(frame, context: context) where m.topic.hasSuffix("stroke") { print("EXAMPLE", m.topic, m.payloadString) }
        }
    }
}
