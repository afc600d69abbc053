import Foundation
import TelemetryCore
import Testing

@testable import TelemetryGateway

/// The fleet view's bounded store: devices, history entries and bytes.
@Suite struct FleetStoreTests {
    private static func payload(_ tag: Int, size: Int) -> [UInt8] {
        let prefix = Array(#"{"n":\#(tag),"pad":""#.utf8)
        return prefix + [UInt8](repeating: UInt8(ascii: "x"), count: max(0, size - prefix.count - 2)) + Array(#""}"#.utf8)
    }

    private static func json(_ store: FleetStore) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(FleetSnapshot(devices: store.devices).json)) as? [String: Any])
        return try #require(object["devices"] as? [[String: Any]])
    }

    @Test("the byte budget holds: the fleet's oldest plot points go first, latest values stay, each drop counted")
    func byteBudget() throws {
        let entry = 200 + FleetStore.entryOverhead
        // Two devices' latest swings (two entries each with the history) and room for 6 more entries.
        let budget = 2 * FleetStore.cost(ofDevice: "a") + 10 * entry
        var store = FleetStore(maxDevices: 10, historyLimit: 100, maxBytes: budget)
        var drops = FleetStore.Drops()
        for n in 0..<20 {
            let step = store.record(device: n % 2 == 0 ? "a" : "b", family: .swing, payload: Self.payload(n, size: 200))
            drops.history += step.history
            drops.events += step.events
            #expect(store.bytes <= budget, "after event \(n)")
        }
        #expect(drops.events == 0)
        // 20 swings: 2 latest + 8 history entries fit; the 12 oldest history entries went.
        #expect(store.historyCount == 8)
        #expect(drops.history == 12)
        let devices = try Self.json(store)
        let swings = devices.flatMap { ($0["swings"] as? [[String: Any]] ?? []).compactMap { $0["n"] as? Int } }
        #expect(Set(swings) == Set(12..<20), "the newest swings of the fleet are kept")
        let latest = devices.compactMap { (($0["latest"] as? [String: Any])?["swing"] as? [String: Any])?["n"] as? Int }
        #expect(latest == [18, 19])
        #expect(FleetSnapshot(devices: store.devices).json.count <= store.bytes, "the answer is never larger than what is counted")
    }

    @Test("an event that cannot fit is dropped with the device's stale value of that family; new devices stop at the budget")
    func eventTooLarge() throws {
        let budget = FleetStore.cost(ofDevice: "a") + 2 * (300 + FleetStore.entryOverhead)
        var store = FleetStore(maxDevices: 10, historyLimit: 10, maxBytes: budget)
        #expect(store.record(device: "a", family: .connection, payload: Self.payload(1, size: 300)) == .init())
        #expect(store.record(device: "a", family: .availability, payload: Self.payload(2, size: 300)) == .init())
        // A bigger connection event does not fit (no history to evict): the old one goes too.
        #expect(store.record(device: "a", family: .connection, payload: Self.payload(3, size: 400)) == .init(events: 1))
        #expect(store.devices[0].latest[.connection] == nil)
        #expect(store.devices[0].latest[.availability] == Self.payload(2, size: 300))
        // A swing fits as latest (where the connection was) but not also in the history.
        #expect(store.record(device: "a", family: .swing, payload: Self.payload(4, size: 300)) == .init(history: 1))
        #expect(store.historyCount == 0)
        #expect(store.record(device: "b", family: .connection, payload: Self.payload(5, size: 10)) == .init(events: 1))
        #expect(store.devices.count == 1)
        #expect(store.bytes <= budget)
    }

    @Test("devices beyond maxDevices are counted, not kept")
    func deviceBound() {
        var store = FleetStore(maxDevices: 2, historyLimit: 10, maxBytes: 1 << 20)
        for id in ["a", "b"] { #expect(store.record(device: id, family: .connection, payload: Self.payload(0, size: 20)) == .init()) }
        #expect(store.record(device: "c", family: .connection, payload: Self.payload(0, size: 20)) == .init(devices: 1))
        #expect(store.devices.map(\.id) == ["a", "b"])
    }

    @Test("the age order stays proportional to what is kept while the per-device limit trims")
    func ageOrderBounded() {
        var store = FleetStore(maxDevices: 10, historyLimit: 5, maxBytes: 1 << 30)
        for n in 0..<100_000 { _ = store.record(device: "quiet-\(n % 3)", family: .depthState, payload: Self.payload(n, size: 30)) }
        #expect(store.historyCount == 15)
        #expect(store.pendingReferences <= 2 * 15 + 4096)
    }
}
