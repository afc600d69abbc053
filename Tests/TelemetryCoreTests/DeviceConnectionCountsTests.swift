import Testing

@testable import TelemetryCore

/// The processor's tally behind `gateway_devices{state}`: it follows every change of presence
/// (status frames, forgetting, restoring a snapshot) without counting the whole table.
@Suite struct DeviceConnectionCountsTests {
    private static let online = #"{"state":"online","date":1000}"#
    private static let offline = #"{"state":"offline"}"#
    private static let altimeter = #"{"timestamp":1,"relativeAltitude":0,"pressure":100}"#

    /// The count a full walk over the devices gives, to hold the tally to.
    private static func walked(_ processor: FrameProcessor, _ ids: [String]) -> DeviceConnectionCounts {
        var counts = DeviceConnectionCounts(connected: 0, disconnected: 0, unknown: 0)
        for id in ids.compactMap(DeviceID.init) where processor.isResident(id) {
            switch processor.connectionState(of: id) {
            case .connected: counts.connected += 1
            case .disconnected: counts.disconnected += 1
            case nil: counts.unknown += 1
            }
        }
        return counts
    }

    @Test("online, offline, a repeated status, a device without status, forget and restore")
    func followsPresence() throws {
        var processor = FrameProcessor()
        let ids = ["a", "b", "c", "d"]
        #expect(processor.connectionCounts == DeviceConnectionCounts(connected: 0, disconnected: 0, unknown: 0))
        _ = processor.process(.json("wearables/a/status", Self.online))
        _ = processor.process(.json("wearables/b/status", Self.online))
        _ = processor.process(.json("wearables/b/status", Self.online))
        _ = processor.process(.json("wearables/c/status", Self.online))
        _ = processor.process(.json("wearables/c/status", Self.offline))
        _ = processor.process(.json("wearables/d/altimeter", Self.altimeter))
        #expect(processor.connectionCounts == DeviceConnectionCounts(connected: 2, disconnected: 1, unknown: 1))
        #expect(processor.connectionCounts == Self.walked(processor, ids))

        let evicted = processor.evict(DeviceID("a")!)
        let snapshot = try #require(evicted)
        processor.forget(DeviceID("c")!)
        #expect(processor.connectionCounts == DeviceConnectionCounts(connected: 1, disconnected: 0, unknown: 1))
        processor.restore(snapshot, of: DeviceID("a")!)
        _ = processor.process(.json("wearables/b/status", Self.offline))
        #expect(processor.connectionCounts == DeviceConnectionCounts(connected: 1, disconnected: 1, unknown: 1))
        #expect(processor.connectionCounts == Self.walked(processor, ids))
    }
}
