import Testing

@testable import TelemetryCore

@Suite("Access: OS versions, model patterns and capability resolution")
struct AccessVersionAndPatternTests {
    typealias F = AccessFixtures

    @Test(
        "versions compare numerically, component by component",
        arguments: [
            ("10.1", "9.6.2"), ("10.0", "9.9"), ("10.10", "10.9"), ("17.1", "17.0.3"), ("2", "1.9.9"), ("9.6.2", "9.6.1"),
            ("10.0.1", "10"), ("100", "99.99.99"),
        ])
    func ordering(_ newer: String, _ older: String) throws {
        let a = try #require(OSVersion(newer))
        let b = try #require(OSVersion(older))
        #expect(a > b)
        #expect(b < a)
        #expect(a != b)
    }

    @Test("missing components count as 0", arguments: [("10", "10.0"), ("10.0", "10.0.0"), ("9.6", "9.6.0.0"), ("0", "0.0")])
    func trailingZeros(_ a: String, _ b: String) throws {
        let left = try #require(OSVersion(a))
        let right = try #require(OSVersion(b))
        #expect(left == right)
        #expect(!(left < right) && !(right < left))
        #expect(Set([left, right]).count == 1)
        #expect(left.description == a)
    }

    @Test(
        "rejects what is not a dotted version",
        arguments: ["", ".", "10.", ".1", "10..1", "10.1 beta", "v10", "10.1b", "ten", "1.2.3.4.5", "-1", "+1", " 10", "1234567890", "١٠"])
    func invalid(_ text: String) {
        #expect(OSVersion(text) == nil)
    }

    @Test(
        "model patterns",
        arguments: [
            ("Apple Watch Ultra*", "Apple Watch Ultra", true), ("Apple Watch Ultra*", "Apple Watch Ultra 2", true),
            ("Apple Watch Ultra*", "Apple Watch Series 9", false), ("Apple Watch Series 8+", "Apple Watch Series 8", true),
            ("Apple Watch Series 8+", "Apple Watch Series 10", true), ("Apple Watch Series 8+", "Apple Watch Series 7", false),
            ("Apple Watch Series 8+", "Apple Watch Series 8 (GPS)", true), ("Apple Watch Series 8+", "Apple Watch Series 80s", false),
            ("Apple Watch Series 1+", "Apple Watch Series", false), ("Apple Watch Series 8+", "Apple Watch SE", false),
            ("iPhone 8+", "iPhone 15 Pro", true), ("iPhone 8+", "iPhone 7 Plus", false), ("iPhone 8+", "iPhone SE", false),
            ("Apple Watch SE", "Apple Watch SE", true), ("Apple Watch SE", "Apple Watch SE (2nd generation)", false),
            ("Apple Watch SE", "apple watch se", false),
        ])
    func patterns(_ pattern: String, _ model: String, _ matches: Bool) throws {
        let parsed = try #require(ModelPattern(pattern))
        #expect(parsed.matches(model) == matches)
        #expect(parsed.description == pattern)
    }

    @Test("pattern syntax errors", arguments: ["", "*", " Apple Watch", "Apple Watch ", "Apple*Watch", "Apple Watch+", "Apple Watch Series x+"])
    func badPatterns(_ text: String) {
        #expect(ModelPattern(text) == nil)
        #expect(ModelPattern.problem(text) != nil)
    }

    @Test("pattern kinds and readable forms")
    func kinds() {
        #expect(ModelPattern("AirPods Pro*") == .prefix("AirPods Pro"))
        #expect(ModelPattern("Apple Watch Series 8+") == .generation(family: "Apple Watch Series", minimum: 8))
        #expect(ModelPattern("AirPods (3rd generation)") == .exact("AirPods (3rd generation)"))
        #expect(ModelPattern("Apple Watch Series 8+")?.readable == "Apple Watch Series 8 or later")
        #expect(ModelPattern("AirPods Pro*")?.readable == "any AirPods Pro")
    }

    @Test("capability resolution with the reference table")
    func resolution() {
        let watchAll: Set<Capability> = [.deviceMotion, .batchedSensors, .waterSubmersion, .pedometer, .pedometerEvents, .altimeter, .sensorRecorder]
        #expect(F.table.capabilities(for: F.ultra2) == watchAll)
        #expect(F.table.capabilities(for: F.series9) == watchAll.subtracting([.waterSubmersion]))
        #expect(F.table.capabilities(for: F.series7) == watchAll.subtracting([.waterSubmersion, .batchedSensors]))
        #expect(F.table.capabilities(for: F.series8OnWatchOS9) == watchAll.subtracting([.waterSubmersion, .batchedSensors]))
        #expect(F.table.capabilities(for: F.watch("Apple Watch Ultra", "9.0")) == watchAll.subtracting([.batchedSensors]))
        #expect(F.table.capabilities(for: F.airPods) == [.headphoneMotion])
        #expect(F.table.capabilities(model: "AirPods Pro", platform: "iOS", osVersion: "13.7").isEmpty)
        #expect(F.table.capabilities(model: "AirPods Pro", platform: "watchOS", osVersion: "10.0").isEmpty)
        #expect(F.table.capabilities(for: F.iPhone) == [.deviceMotion, .pedometer, .pedometerEvents, .altimeter, .sensorRecorder])
        #expect(F.table.capabilities(model: "Pixel Watch 2", platform: "watchOS", osVersion: "10.1").isEmpty)
        #expect(F.table.capabilities(model: "Apple Watch Ultra 2", platform: "watchOS", osVersion: "10.1 beta").isEmpty)
        #expect(CapabilityTable.empty.capabilities(for: F.ultra2).isEmpty)
        #expect(F.table.explainMissing(.waterSubmersion, for: F.ultra2) == "Apple Watch Ultra 2 (watchOS 10.1) has waterSubmersion")
        #expect(F.table.knows(model: "Apple Watch Series 2"))
        #expect(!F.table.knows(model: "Galaxy Watch"))
    }

    @Test("a phone's connected headphones add head tracking only when the table covers them")
    func connectedHeadphones() {
        func phone(with headphones: String?, os: String = "17.1") -> DeviceDescriptor {
            DeviceDescriptor(model: "iPhone 15 Pro", platform: "iOS", osVersion: os, app: "a", authorization: .authorized, headphones: headphones)
        }
        #expect(F.table.capabilities(for: phone(with: "AirPods Pro (2nd generation)")).contains(.headphoneMotion))
        #expect(F.table.capabilities(for: phone(with: "Beats Fit Pro")).contains(.headphoneMotion))
        #expect(!F.table.capabilities(for: phone(with: "AirPods (2nd generation)")).contains(.headphoneMotion))
        #expect(!F.table.capabilities(for: phone(with: nil)).contains(.headphoneMotion))
        #expect(!F.table.capabilities(for: phone(with: "AirPods Max", os: "13.0")).contains(.headphoneMotion))
        // Only head tracking: a watch model named as "headphones" grants nothing else.
        #expect(F.table.capabilities(for: phone(with: "Apple Watch Ultra 2")) == F.table.capabilities(for: phone(with: nil)))
        #expect(
            F.table.explainMissing(.headphoneMotion, for: phone(with: "AirPods (2nd generation)"))
                .hasPrefix("AirPods (2nd generation) connected to iPhone 15 Pro (iOS 17.1) lacks headphoneMotion: model 'AirPods (2nd generation)' is not in the capability table"))
    }

    @Test("maximum depth from entitlements")
    func maximumDepth() {
        #expect(Entitlement.maximumDepth(granted: []) == nil)
        #expect(Entitlement.maximumDepth(granted: [.motionBatched, .pedometer]) == nil)
        #expect(Entitlement.maximumDepth(granted: [.submersionShallow]) == 6)
        #expect(Entitlement.maximumDepth(granted: [.submersionFull]) == 40)
        #expect(Entitlement.maximumDepth(granted: [.submersionShallow, .submersionFull, .altimeter]) == 40)
    }

    @Test("entitlements parse from the contract spelling only")
    func entitlementSpelling() {
        #expect(Entitlement.allCases.map(\.rawValue) == [
            "submersion.shallow", "submersion.full", "motion.batched", "motion.headphone", "motion.device", "pedometer", "altimeter", "recorder",
        ])
        #expect(Entitlement(rawValue: "submersion.deep") == nil)
        #expect(Entitlement(rawValue: "Pedometer") == nil)
    }
}
