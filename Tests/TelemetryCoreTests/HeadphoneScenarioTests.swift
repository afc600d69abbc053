import Foundation
import TelemetrySimulation
import Testing

@testable import TelemetryCore

/// Every simulator headphone scenario through the gateway's pure pipeline (decoding, checks,
/// derivations) on a simulated clock, against the scenario's own ground truth. The same
/// scenarios run through a real broker in `IntegrationTests/HeadphoneDerivationTests`.
@Suite struct HeadphoneScenarioTests {
    /// Runs `scenario` through a `FrameProcessor`: each frame is received at `startDate + time`,
    /// and the worker's tick runs every 0.5 s of that clock (as the gateway's ticker does).
    static func run(_ scenario: HeadphoneScenario, configuration: HeadphoneConfiguration = HeadphoneConfiguration()) -> [OutboundMessage] {
        var derivation = DerivationConfiguration()
        derivation.headphones = configuration
        var processor = FrameProcessor(configuration: .init(derivation: derivation))
        var messages: [OutboundMessage] = []
        var nextTick = scenario.startDate + 0.5
        for frame in scenario.frames {
            let receivedAt = scenario.startDate + frame.time
            while nextTick <= receivedAt {
                messages += processor.flush(now: nextTick)
                nextTick += 0.5
            }
            let inbound = InboundFrame(topic: frame.topic(), payload: frame.payload, retained: frame.retain, receivedAt: receivedAt)
            messages += processor.process(inbound).messages
        }
        for _ in 0..<10 {
            messages += processor.flush(now: nextTick)
            nextTick += 0.5
        }
        return messages
    }

    /// The scenario's outputs, read with Foundation.
    static func observed(_ messages: [OutboundMessage], device: String) -> HeadphoneScenario.Observed {
        var observed = HeadphoneScenario.Observed()
        let prefix = "gateway/\(device)/headphone/"
        for message in messages where message.topic.hasPrefix(prefix) {
            guard let json = message.jsonObject else { continue }
            func number(_ key: String) -> Double { (json[key] as? NSNumber)?.doubleValue ?? .nan }
            switch message.topic.dropFirst(prefix.count) {
            case "connection":
                observed.connections.append(
                    .init(
                        state: json["state"] as? String ?? "", reason: json["reason"] as? String ?? "", sensorLocation: json["sensorLocation"] as? String,
                        date: number("date"), timestamp: (json["timestamp"] as? NSNumber)?.doubleValue, version: (json["version"] as? NSNumber)?.uint64Value ?? 0))
            case "sensor-location":
                observed.handoffs.append(.init(from: json["from"] as? String ?? "", to: json["to"] as? String ?? "", timestamp: number("timestamp")))
            case "pose":
                observed.poses.append(.init(timestamp: number("timestamp"), yaw: number("yaw"), pitch: number("pitch"), roll: number("roll")))
            case "posture":
                observed.postures.append(.init(kind: json["state"] as? String ?? "", timestamp: number("timestamp")))
            case "gesture":
                observed.gestures.append(.init(kind: json["gesture"] as? String ?? "", timestamp: number("timestamp")))
            default:
                continue
            }
        }
        return observed
    }

    @Test("each scenario yields exactly its ground truth", arguments: HeadphoneScenario.all().map(\.name))
    func scenario(_ name: String) throws {
        let scenario = try #require(HeadphoneScenario.all().first { $0.name == name })
        let messages = Self.run(scenario)
        #expect(messages.allSatisfy { !$0.topic.hasSuffix("/errors") }, "\(messages.filter { $0.topic.hasSuffix("/errors") })")
        let problems = scenario.mismatches(Self.observed(messages, device: scenario.deviceId))
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("the ground truth is not vacuous: a wrong pose, a missing hand-off or an extra state is caught")
    func mismatchesAreFound() throws {
        let scenario = HeadphoneScenario.budHandoff()
        var observed = Self.observed(Self.run(scenario), device: scenario.deviceId)
        #expect(scenario.mismatches(observed).isEmpty)
        var wrongPose = observed
        wrongPose.poses[wrongPose.poses.count - 1].yaw += 1.5
        #expect(scenario.mismatches(wrongPose).count == 1)
        var noHandoff = observed
        noHandoff.handoffs.removeAll()
        #expect(!scenario.mismatches(noHandoff).isEmpty)
        observed.connections.append(observed.connections[0])
        #expect(!scenario.mismatches(observed).isEmpty)
    }

    @Test("scenarios cover every connection reason, hand-offs both ways, posture and gestures")
    func coverage() {
        let scenarios = HeadphoneScenario.all()
        let reasons = Set(scenarios.flatMap { $0.connections.map(\.reason) })
        #expect(reasons == Set(HeadphoneConnectionReason.allCases))
        let handoffs = Set(scenarios.flatMap { $0.handoffs.map { "\($0.from.name)→\($0.to.name)" } })
        #expect(handoffs == ["headphoneLeft→headphoneRight", "headphoneRight→headphoneLeft"])
        #expect(Set(scenarios.flatMap { $0.postures.map(\.kind) }) == ["headDown", "upright"])
        #expect(Set(scenarios.flatMap { $0.gestures.map(\.kind) }) == ["nod", "shake"])
        #expect(scenarios.contains { $0.steps.contains { if case .silence = $0 { true } else { false } } })
    }
}
