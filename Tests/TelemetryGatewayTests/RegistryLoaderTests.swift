import TelemetryCore
import Testing

@testable import TelemetryGateway

@Suite("Device registry loading")
struct RegistryLoaderTests {
    private func parse(_ yaml: String) throws(ConfigurationError) -> LoadedRegistry {
        try DeviceRegistryLoader.parse(yaml: yaml, source: "devices.yml")
    }

    private func issues(_ yaml: String) -> [ConfigurationIssue] {
        do {
            _ = try parse(yaml)
            return []
        } catch {
            return error.issues
        }
    }

    @Test("the contract's example")
    func contractExample() throws {
        let loaded = try parse(
            """
            open: false              # true: unknown devices are accepted with `defaultEntitlements`
            defaultEntitlements: []
            devices:
              watch-ultra-1:
                entitlements: [submersion.shallow, motion.batched, motion.device, pedometer, altimeter]
              buds-1:
                entitlements: [motion.headphone]
            """)
        let registry = loaded.registry
        #expect(!registry.isOpen)
        #expect(registry.defaultEntitlements.isEmpty)
        #expect(registry.devices.count == 2)
        #expect(registry.entitlements(for: DeviceID("watch-ultra-1")!) == [.submersionShallow, .motionBatched, .motionDevice, .pedometer, .altimeter])
        #expect(registry.entitlements(for: DeviceID("buds-1")!) == [.motionHeadphone])
        #expect(registry.entitlements(for: DeviceID("other")!) == nil)
        #expect(loaded.warnings.isEmpty)
    }

    @Test("open mode grants defaultEntitlements to unlisted devices only")
    func openMode() throws {
        let registry = try parse(
            """
            open: true
            defaultEntitlements:
              - motion.device
              - pedometer
            devices:
              buds-1:
                entitlements: [motion.headphone]
            """
        ).registry
        #expect(registry.isOpen)
        #expect(registry.entitlements(for: DeviceID("anyone")!) == [.motionDevice, .pedometer])
        #expect(registry.isKnown(DeviceID("anyone")!))
        #expect(registry.entitlements(for: DeviceID("buds-1")!) == [.motionHeadphone])
    }

    @Test("closed is the default; an empty device or list is a known device without entitlements")
    func defaultsAndEmpty() throws {
        let loaded = try parse("devices:\n  watch-1:\n  watch-2:\n    entitlements: []\n  watch-3: {}\n")
        #expect(!loaded.registry.isOpen)
        #expect(loaded.registry.devices.count == 3)
        #expect(loaded.registry.devices.values.allSatisfy { $0.isEmpty })
        #expect(loaded.warnings == ["devices.yml:2: devices.watch-1: lists no entitlements: the device may only send hello, status, authorization and workout"])
        #expect(try parse("open: false\n").registry == DeviceRegistry())
    }

    @Test("an unknown entitlement names file:line, the key path and a suggestion")
    func unknownEntitlement() {
        let found = issues("open: false\ndevices:\n  watch-1:\n    entitlements: [motion.device, submersion.deep]\n  watch-2:\n    entitlements:\n      - pedometer\n      - altimetre\n")
        #expect(found.count == 2)
        #expect(found.map(\.source) == ["devices.yml:4", "devices.yml:8"])
        #expect(found.map(\.key) == ["devices.watch-1.entitlements[1]", "devices.watch-2.entitlements[1]"])
        #expect(found.first?.message.hasPrefix("unknown entitlement 'submersion.deep'; allowed: submersion.shallow, submersion.full, ") == true)
        #expect(found.last?.message.hasPrefix("unknown entitlement 'altimetre' (did you mean 'altimeter'?); allowed: submersion.shallow, ") == true)
        #expect(found.first?.description.hasPrefix("devices.yml:4: devices.watch-1.entitlements[1]: unknown entitlement") == true)
    }

    @Test(
        "every problem is reported with its line",
        arguments: [
            ("open: maybe\n", "open", "devices.yml:1", "must be true or false, got 'maybe'"),
            ("opne: true\n", "opne", "devices.yml:1", "unknown key (did you mean 'open'?)"),
            ("devices:\n  watch/1:\n    entitlements: []\n", "devices.watch/1", "devices.yml:2", "device id contains '/' at position 6"),
            ("devices:\n  watch-1:\n    entitlement: [pedometer]\n", "devices.watch-1.entitlement", "devices.yml:3", "unknown key (did you mean 'entitlements'?)"),
            ("devices:\n  watch-1:\n    entitlements: pedometer\n", "devices.watch-1.entitlements", "devices.yml:3", "expected a list"),
            ("devices:\n  watch-1: [pedometer]\n", "devices.watch-1", "devices.yml:2", "expected a mapping with 'entitlements', found a list"),
            ("devices: [watch-1]\n", "devices", "devices.yml:1", "expected a mapping of device ids, found a list"),
            ("defaultEntitlements: [pedometer, [altimeter]]\n", "defaultEntitlements[1]", "devices.yml:1", "expected a single value, found a list"),
            ("- watch-1\n", "(file)", "devices.yml:1", "expected a mapping with open, defaultEntitlements and devices, found a list"),
            ("", "(file)", "devices.yml", "the file is empty"),
            ("devices:\n  watch-1:\n    entitlements: [pedometer\n", "(file)", "devices.yml:", "not valid YAML"),
            ("devices:\n  watch-1: {}\n  watch-1: {}\n", "(file)", "devices.yml:", "duplicate key 'watch-1'"),
        ])
    func problems(_ yaml: String, _ key: String, _ source: String, _ message: String) {
        let found = issues(yaml)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.key == key)
        #expect(found.first?.source.hasPrefix(source) == true, "\(found.first?.source ?? "")")
        #expect(found.first?.message.contains(message) == true, "\(found.first?.message ?? "")")
    }

    @Test("all problems of a file are listed, not only the first")
    func manyProblems() {
        let found = issues("open: yes\nextra: 1\ndevices:\n  ok-1:\n    entitlements: [pedometer]\n  bad id:\n    entitlements: [x]\n")
        #expect(found.map(\.key) == ["extra", "open", "devices.bad id"])
    }

    @Test("remarks: defaults while closed, duplicate entitlements")
    func warnings() throws {
        let loaded = try parse("open: false\ndefaultEntitlements: [pedometer]\ndevices:\n  w-1:\n    entitlements: [pedometer, pedometer]\n")
        #expect(loaded.warnings == [
            "devices.yml:5: devices.w-1.entitlements[1]: 'pedometer' is listed more than once",
            "devices.yml:2: defaultEntitlements: has no effect while the registry is closed (open: false)",
        ])
    }

    @Test("a missing file is a problem naming the file")
    func missingFile() {
        #expect(throws: ConfigurationError.self) { try DeviceRegistryLoader.load(file: "/nonexistent/devices.yml") }
        do throws(ConfigurationError) {
            _ = try DeviceRegistryLoader.load(file: "/nonexistent/devices.yml")
        } catch {
            #expect(error.issues.first?.source == "/nonexistent/devices.yml")
            #expect(error.issues.first?.message.hasPrefix("cannot read the file") == true)
        }
    }
}
