import MQTTTransport
import Testing

@testable import TelemetryGateway

/// The retained device snapshot stays the newest: the owner publishes its own again when another
/// instance's older snapshot of a device it owns arrives (docs/scale-out.md, derived state).
@Suite struct SnapshotLedgerTests {
    static func message(_ lastSeen: Double) -> MQTTMessage {
        MQTTMessage(topic: "gateway/cluster/state/w1", string: #"{"lastSeen":\#(lastSeen)}"#, qos: .atLeastOnce, retain: true)
    }

    @Test("an older snapshot from another instance of an owned device is answered with the owner's newer one")
    func staleAnswered() {
        var ledger = SnapshotLedger()
        let beforeAny = ledger.received(device: "w1", lastSeen: 5, fromOther: true, owned: true)
        #expect(!beforeAny, "nothing published yet: nothing to answer with")
        ledger.sent(Self.message(10), device: "w1", lastSeen: 10)
        ledger.sent(Self.message(8), device: "w1", lastSeen: 8)  // an older one sent late is not remembered
        #expect(ledger.message(of: "w1")?.payloadString == #"{"lastSeen":10.0}"#)
        let stale = ledger.received(device: "w1", lastSeen: 9.99, fromOther: true, owned: true)
        #expect(stale, "the old owner's late loss snapshot")
        let same = ledger.received(device: "w1", lastSeen: 10, fromOther: true, owned: true)
        #expect(!same, "as new: nothing to correct")
        let newer = ledger.received(device: "w1", lastSeen: 12, fromOther: true, owned: true)
        #expect(!newer, "newer: not answered")
        let own = ledger.received(device: "w1", lastSeen: 9, fromOther: false, owned: true)
        #expect(!own, "its own come back in order")
        let unknown = ledger.received(device: "w2", lastSeen: 1, fromOther: true, owned: true)
        #expect(!unknown)
    }

    @Test("a device no longer owned is not answered for, and forgotten")
    func notOwned() {
        var ledger = SnapshotLedger()
        ledger.sent(Self.message(10), device: "w1", lastSeen: 10)
        let lost = ledger.received(device: "w1", lastSeen: 5, fromOther: true, owned: false)
        #expect(!lost && ledger.count == 0 && ledger.message(of: "w1") == nil)
        let regained = ledger.received(device: "w1", lastSeen: 5, fromOther: true, owned: true)
        #expect(!regained)
    }
}
