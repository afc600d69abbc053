import MQTTTransport
import TelemetryCore
import Testing
import WearableGatewayTesting

@Suite("Ground-truth diffs")
struct GroundTruthComparisonTests {
    static func state(_ name: String) -> MQTTMessage {
        MQTTMessage(topic: "gateway/w-1/submersion/depth-state", string: #"{"state":"\#(name)"}"#)
    }

    @Test("the same depth states: no diff; a different one: the position, expected and received")
    func depthStates() {
        let expected: [DepthState] = [.notSubmerged, .submergedShallow, .notSubmerged]
        #expect(GroundTruthComparison.depthStates(expected: expected, received: ["notSubmerged", "submergedShallow", "notSubmerged"].map(Self.state)).isEmpty)
        let diff = GroundTruthComparison.depthStates(expected: expected, received: ["notSubmerged", "submergedDeep"].map(Self.state))
        #expect(diff == ["depth states: expected 3, received 2", "  1 notSubmerged", "- 2 submergedShallow", "+ 2 submergedDeep", "- 3 notSubmerged"])
    }
}
