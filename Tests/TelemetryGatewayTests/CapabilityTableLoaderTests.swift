import Foundation
import TelemetryCore
import Testing

@testable import TelemetryGateway

/// The repository root, for the shipped `config/` files.
enum RepositoryFiles {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var capabilities: String { root.appendingPathComponent("config/capabilities.yml").path }
    static var devices: String { root.appendingPathComponent("config/devices.yml").path }
}

@Suite("Capability table loading and the shipped config/capabilities.yml")
struct CapabilityTableLoaderTests {
    private static func descriptor(_ model: String, _ platform: String, _ os: String, headphones: String? = nil) -> DeviceDescriptor {
        DeviceDescriptor(model: model, platform: platform, osVersion: os, app: "a", authorization: .authorized, headphones: headphones)
    }

    private func issues(_ yaml: String) -> [ConfigurationIssue] {
        do {
            _ = try CapabilityTableLoader.parse(yaml: yaml, source: "capabilities.yml")
            return []
        } catch {
            return error.issues
        }
    }

    private static let watchAll: Set<Capability> = [.deviceMotion, .batchedSensors, .waterSubmersion, .pedometer, .pedometerEvents, .altimeter, .sensorRecorder]

    private static let shippedCases: [(DeviceDescriptor, Set<Capability>)] = [
        (descriptor("Apple Watch Ultra 2", "watchOS", "10.0"), watchAll),
        (descriptor("Apple Watch Ultra 2", "watchOS", "10.1"), watchAll),
        (descriptor("Apple Watch Ultra", "watchOS", "9.6.2"), watchAll.subtracting([.batchedSensors])),
        (descriptor("Apple Watch Ultra", "watchOS", "8.7"), watchAll.subtracting([.batchedSensors, .waterSubmersion])),
        (descriptor("Apple Watch Series 9", "watchOS", "10.1"), watchAll.subtracting([.waterSubmersion])),
        (descriptor("Apple Watch Series 10", "watchOS", "11.0"), watchAll.subtracting([.waterSubmersion])),
        (descriptor("Apple Watch Series 8", "watchOS", "10.0"), watchAll.subtracting([.waterSubmersion])),
        (descriptor("Apple Watch Series 8", "watchOS", "9.6"), watchAll.subtracting([.waterSubmersion, .batchedSensors])),
        (descriptor("Apple Watch Series 7", "watchOS", "10.1"), watchAll.subtracting([.waterSubmersion, .batchedSensors])),
        (descriptor("Apple Watch SE (2nd generation)", "watchOS", "10.1"), watchAll.subtracting([.waterSubmersion, .batchedSensors])),
        (descriptor("Apple Watch Series 2", "watchOS", "6.2"), [.deviceMotion, .pedometer, .pedometerEvents, .sensorRecorder]),
        (descriptor("AirPods Pro (2nd generation)", "iOS", "17.1"), [.headphoneMotion]),
        (descriptor("AirPods Max", "macOS", "14.0"), [.headphoneMotion]),
        (descriptor("AirPods Pro", "iOS", "13.7"), []),
        (descriptor("AirPods (2nd generation)", "iOS", "17.1"), []),
        (descriptor("iPhone 15 Pro", "iOS", "17.1"), [.deviceMotion, .pedometer, .pedometerEvents, .altimeter, .sensorRecorder]),
        (descriptor("iPhone 15 Pro", "iOS", "17.1", headphones: "AirPods Pro (2nd generation)"),
            [.deviceMotion, .pedometer, .pedometerEvents, .altimeter, .sensorRecorder, .headphoneMotion]),
        (descriptor("iPhone 6", "iOS", "12.5"), []),
        (descriptor("Pixel Watch 2", "Wear OS", "4"), []),
        (descriptor("Apple Watch Ultra 2", "watchOS", "10.1 beta"), []),
    ]

    @Test("the shipped table resolves the documented capabilities", arguments: shippedCases)
    func shipped(_ descriptor: DeviceDescriptor, _ expected: Set<Capability>) throws {
        let table = try CapabilityTableLoader.load(file: RepositoryFiles.capabilities).table
        #expect(table.capabilities(for: descriptor) == expected, "\(descriptor.model) \(descriptor.platform) \(descriptor.osVersion)")
    }

    @Test("the shipped table loads without warnings, documents every rule and grants every capability")
    func shippedIsComplete() throws {
        let loaded = try CapabilityTableLoader.load(file: RepositoryFiles.capabilities)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        #expect(loaded.table.rules.allSatisfy { !$0.why.isEmpty })
        #expect(Set(loaded.table.rules.flatMap(\.capabilities)) == Set(Capability.allCases))
    }

    @Test("a full rule parses")
    func parsesRule() throws {
        let loaded = try CapabilityTableLoader.parse(
            yaml: """
                rules:
                  - capabilities: [batchedSensors]
                    models: ["Apple Watch Series 8+", "Apple Watch Ultra*", Apple Watch SE]
                    platforms: {watchOS: 10.0, iOS: "17"}
                    why: WWDC23
                """, source: "capabilities.yml")
        let rule = try #require(loaded.table.rules.first)
        #expect(rule.capabilities == [.batchedSensors])
        #expect(rule.models == [.generation(family: "Apple Watch Series", minimum: 8), .prefix("Apple Watch Ultra"), .exact("Apple Watch SE")])
        #expect(rule.platforms.map(\.platform) == ["watchOS", "iOS"])
        #expect(rule.platforms.map(\.minimum.description) == ["10.0", "17"])
        #expect(rule.why == "WWDC23")
        #expect(loaded.warnings.count == Capability.allCases.count - 1)
        #expect(loaded.warnings.first == "capabilities.yml: no rule grants deviceMotion: every frame that needs it fails with notAvailable")
    }

    @Test(
        "every problem names file:line and the key path",
        arguments: [
            ("rules:\n  - capabilities: [batchedSensor]\n    models: [x]\n    platforms: {watchOS: \"10\"}\n", "rules[0].capabilities[0]",
                "capabilities.yml:2", "unknown capability 'batchedSensor' (did you mean 'batchedSensors'?)"),
            ("rules:\n  - capabilities: [altimeter]\n    models: [\"Apple*Watch\"]\n    platforms: {watchOS: \"10\"}\n", "rules[0].models[0]",
                "capabilities.yml:3", "'*' may only end a model pattern"),
            ("rules:\n  - capabilities: [altimeter]\n    models: [x]\n    platforms: {watchOS: \"ten\"}\n", "rules[0].platforms.watchOS",
                "capabilities.yml:4", "'ten' is not a dotted version"),
            ("rules:\n  - capabilities: [altimeter]\n    models: [x]\n", "rules[0].platforms", "capabilities.yml:2", "missing"),
            ("rules:\n  - capabilities: []\n    models: [x]\n    platforms: {iOS: \"1\"}\n", "rules[0].capabilities", "capabilities.yml:2",
                "at least one capability"),
            ("rules:\n  - capabilities: [altimeter]\n    models: []\n    platforms: {iOS: \"1\"}\n", "rules[0].models", "capabilities.yml:3",
                "at least one model pattern"),
            ("rules:\n  - capabilities: [altimeter]\n    models: [x]\n    platforms: {}\n", "rules[0].platforms", "capabilities.yml:4",
                "at least one platform"),
            ("rules:\n  - capabilities: [altimeter]\n    model: [x]\n    models: [x]\n    platforms: {iOS: \"1\"}\n", "rules[0].model",
                "capabilities.yml:3", "unknown key (did you mean 'models'?)"),
            ("rule: []\n", "rule", "capabilities.yml:1", "unknown key (did you mean 'rules'?)"),
            ("rules: {}\n", "rules", "capabilities.yml:1", "expected a list of rules, found a mapping"),
            ("rules:\n  - just text\n", "rules[0]", "capabilities.yml:2", "expected a rule mapping"),
        ])
    func problems(_ yaml: String, _ key: String, _ source: String, _ message: String) {
        let found = issues(yaml)
        #expect(found.first?.key == key, "\(found)")
        #expect(found.first?.source == source)
        #expect(found.first?.message.contains(message) == true, "\(found.first?.message ?? "")")
    }
}
