import Testing

@testable import TelemetryCore

/// Partitioned mode's ownership: fixed across runs, balanced, and moving only what must move.
@Suite struct RendezvousOwnershipTests {
    static let three = RendezvousOwnership(instances: ["gw-a", "gw-b", "gw-c"])
    static let four = RendezvousOwnership(instances: ["gw-a", "gw-b", "gw-c", "gw-d"])
    static let devices = (0..<30_000).map { "device-\($0)" }

    // Expected owners computed independently with Python:
    // score = fmix64(fnv1a64(device) ^ fmix64(fnv1a64(instance))), highest wins.
    @Test("gives fixed owners across runs, processes and platforms", arguments: [
        ("watch-1", "gw-c", "gw-d"), ("watch-2", "gw-a", "gw-d"), ("buds-1", "gw-a", "gw-a"), ("watch-ultra-1", "gw-b", "gw-d"),
        ("device-0042", "gw-a", "gw-a"), ("a", "gw-a", "gw-d"), ("", "gw-b", "gw-d"),
    ])
    func fixedOwners(_ device: String, _ ofThree: String, _ ofFour: String) {
        #expect(Self.three.owner(of: device) == ofThree)
        #expect(Self.four.owner(of: device) == ofFour)
        #expect(Self.three.owns(ofThree, device))
    }

    @Test("spreads 30,000 devices within 3 % of an even share")
    func balance() {
        for ownership in [Self.three, Self.four] {
            let counts = Dictionary(grouping: Self.devices, by: { ownership.owner(of: $0)! }).mapValues(\.count)
            let even = Double(Self.devices.count) / Double(ownership.instances.count)
            #expect(counts.count == ownership.instances.count)
            for (instance, count) in counts {
                #expect(abs(Double(count) - even) < 0.03 * even, "\(instance) owns \(count), even share \(even)")
            }
        }
    }

    @Test("an instance leaving moves only its own devices")
    func leave() {
        let two = RendezvousOwnership(instances: ["gw-a", "gw-c"])
        for device in Self.devices {
            let before = Self.three.owner(of: device)!
            let after = two.owner(of: device)!
            if before != "gw-b" { #expect(after == before, "\(device) moved from \(before) to \(after)") }
        }
    }

    @Test("an instance joining takes about a quarter, and only from the others")
    func join() {
        var moved = 0
        for device in Self.devices {
            let before = Self.three.owner(of: device)!
            let after = Self.four.owner(of: device)!
            if before != after {
                #expect(after == "gw-d")
                moved += 1
            }
        }
        let share = Double(moved) / Double(Self.devices.count)
        #expect(abs(share - 0.25) < 0.02, "moved \(share)")
    }

    @Test("no instances own nothing; order and repeats of names do not matter")
    func edges() {
        #expect(RendezvousOwnership(instances: [String]()).owner(of: "watch-1") == nil)
        #expect(!RendezvousOwnership(instances: [String]()).owns("gw-a", "watch-1"))
        #expect(RendezvousOwnership(instances: ["gw-c", "gw-a", "gw-b", "gw-a"]) == Self.three)
        #expect(RendezvousOwnership(instances: ["solo"]).owner(of: "anything") == "solo")
    }
}
