import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

@Suite("Unacknowledged outputs carried by device snapshots")
struct UnacknowledgedOutputsTests {
    static func message(_ name: String, qos: MQTTQoS = .atLeastOnce) -> OutboundMessage {
        OutboundMessage(topic: "gateway/w-1/\(name)", payload: Array(name.utf8), qos: qos)
    }

    @Test("outputs stay until their frame is acknowledged, in journal order; QoS 0 ones are not kept")
    func registerAndAcknowledge() throws {
        let outputs = UnacknowledgedOutputs()
        let device = try #require(DeviceID("w-1"))
        outputs.register(device, sequence: 9, [Self.message("b")])
        outputs.register(device, sequence: 4, [Self.message("a"), Self.message("pose", qos: .atMostOnce)])
        #expect(outputs.messages(of: device)?.map(\.payloadString) == ["a", "b"])
        outputs.acknowledged(device, sequence: 4)
        #expect(outputs.messages(of: device)?.map(\.payloadString) == ["b"])
        outputs.acknowledged(device, sequence: 9)
        #expect(outputs.messages(of: device) == nil)
    }

    @Test("attached to a snapshot only for its own device")
    func attach() throws {
        let outputs = UnacknowledgedOutputs()
        let first = try #require(DeviceID("w-1"))
        let second = try #require(DeviceID("w-2"))
        outputs.register(first, sequence: 1, [Self.message("a")])
        let snapshot = DeviceSnapshot(lastSeen: 1, access: nil, connection: nil, derivations: nil, appliedJournalSequence: 1)
        let attached = outputs.attach(to: [(first, snapshot), (second, snapshot)])
        #expect(attached[0].snapshot.unacknowledgedOutputs?.map(\.payloadString) == ["a"])
        #expect(attached[1].snapshot.unacknowledgedOutputs == nil)
    }
}
