import Foundation
import Locking
import Logging
import TelemetryCore
import Testing

@testable import TelemetryGateway

@Suite("Device registry: the shipped files and reloading")
struct RegistryReloadTests {
    /// `SimulatedFleet.mixed(count: 10)` and `SimulatedFleet.ruleBreakers()` ids (the core tests
    /// check the simulator produces exactly these).
    static let mixedIds = [
        "watch-ultra-1", "watch-s9-1", "buds-1", "watch-s9-2", "phone-1", "watch-ultra-2", "watch-s9-3", "buds-2", "watch-s9-4", "phone-2",
    ]
    static let ruleBreakerIds = ["watch-s7-1", "watch-denied-1", "watch-nodepth-1", "watch-noworkout-1"]
    /// The run scenarios' devices (`RunScenario.urbanRun`, `.trailRun`; RunSegmentDerivationTests uses them).
    static let runnerIds = ["watch-run-1", "watch-run-2"]

    private func withFiles<T>(registry: String, capabilities: String? = nil, _ body: (AccessPolicyFiles, URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("acc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let registryPath = directory.appendingPathComponent("devices.yml").path
        try registry.write(toFile: registryPath, atomically: true, encoding: .utf8)
        var capabilitiesPath = RepositoryFiles.capabilities
        if let capabilities {
            capabilitiesPath = directory.appendingPathComponent("capabilities.yml").path
            try capabilities.write(toFile: capabilitiesPath, atomically: true, encoding: .utf8)
        }
        return try body(AccessPolicyFiles(registry: registryPath, capabilities: capabilitiesPath), directory)
    }

    @Test("the shipped devices.yml is closed and covers the simulator's fleet, runners, the tremor recording and rule breakers, but not watch-unlisted-1")
    func shippedRegistry() throws {
        let loaded = try DeviceRegistryLoader.load(file: RepositoryFiles.devices)
        #expect(loaded.warnings.isEmpty)
        let registry = loaded.registry
        #expect(!registry.isOpen)
        #expect(Set(registry.devices.keys.map(\.rawValue)) == Set(Self.mixedIds + Self.runnerIds + ["watch-tremor-1"] + Self.ruleBreakerIds))
        #expect(registry.entitlements(for: DeviceID("watch-unlisted-1")!) == nil)
        #expect(registry.devices[DeviceID("watch-ultra-1")!]?.contains(.submersionShallow) == true)
        #expect(registry.devices[DeviceID("watch-nodepth-1")!].map { Entitlement.maximumDepth(granted: $0) } == .some(nil))
    }

    @Test(
        "with the shipped files, each simulated device passes and each rule breaker fails the intended check",
        arguments: [
            ("watch-ultra-1", "Apple Watch Ultra 2", "watchOS", AuthorizationStatus.authorized, true, InboundStream.submersionMeasurement, nil as GatewayErrorCode?),
            ("watch-ultra-2", "Apple Watch Ultra 2", "watchOS", .authorized, true, .batchedAccelerometer, nil),
            ("watch-s9-3", "Apple Watch Series 9", "watchOS", .authorized, true, .batchedDeviceMotion, nil),
            ("watch-s9-4", "Apple Watch Series 9", "watchOS", .authorized, true, .recorderAccelerometer, nil),
            ("buds-2", "AirPods Pro (2nd generation)", "iOS", .authorized, false, .headphoneMotion, nil),
            ("phone-2", "iPhone 15 Pro", "iOS", .authorized, false, .pedometerEvent, nil),
            ("phone-1", "iPhone 15 Pro", "iOS", .authorized, false, .altimeter, nil),
            ("watch-s7-1", "Apple Watch Series 7", "watchOS", .authorized, true, .batchedAccelerometer, .notAvailable),
            ("watch-s7-1", "Apple Watch Series 7", "watchOS", .authorized, true, .motion, nil),
            ("watch-denied-1", "Apple Watch Series 9", "watchOS", .denied, true, .motion, .notAuthorized),
            ("watch-nodepth-1", "Apple Watch Ultra 2", "watchOS", .authorized, true, .submersionEvent, .notEntitled),
            ("watch-noworkout-1", "Apple Watch Series 9", "watchOS", .authorized, false, .batchedAccelerometer, .noActiveWorkout),
            ("watch-unlisted-1", "Apple Watch Series 9", "watchOS", .authorized, true, .status, .unknownDevice),
        ])
    func shippedPolicy(
        _ id: String, _ model: String, _ platform: String, _ authorization: AuthorizationStatus, _ workout: Bool, _ stream: InboundStream,
        _ expected: GatewayErrorCode?
    ) throws {
        let policy = try AccessPolicyLoader.load(AccessPolicyFiles(registry: RepositoryFiles.devices, capabilities: RepositoryFiles.capabilities)).policy
        var state = DeviceAccessState()
        let os = platform == "iOS" ? "17.1" : "10.1"
        state.apply(hello: DeviceDescriptor(model: model, platform: platform, osVersion: os, app: "a", authorization: authorization), retained: true)
        if workout { state.apply(workout: WorkoutEvent(state: .running, activityType: "tennis", date: 1)) }
        let verdict = AccessChecker.check(stream: stream, device: DeviceID(id)!, state: state, registry: policy.registry, capabilities: policy.capabilities)
        #expect(verdict.code == expected, "\(verdict)")
    }

    @Test("a reload with a changed file replaces the policy; the same content is unchanged")
    func reloadReplaces() throws {
        try withFiles(registry: "devices:\n  w-1:\n    entitlements: [pedometer]\n") { files, _ in
            let initial = try AccessPolicyLoader.load(files).policy
            #expect(initial.registry.devices.count == 1)
            guard case .unchanged(let warnings) = AccessPolicyLoader.reload(files, current: initial) else {
                Issue.record("expected unchanged")
                return
            }
            #expect(warnings.isEmpty)
            try "devices:\n  w-1:\n    entitlements: [pedometer, altimeter]\n  w-2:\n".write(toFile: files.registry!, atomically: true, encoding: .utf8)
            guard case .replaced(let loaded) = AccessPolicyLoader.reload(files, current: initial) else {
                Issue.record("expected replaced")
                return
            }
            #expect(loaded.policy.registry.devices[DeviceID("w-1")!] == [.pedometer, .altimeter])
            #expect(loaded.policy.registry.devices[DeviceID("w-2")!] == [])
            #expect(loaded.warnings.count == 1)
            #expect(loaded.policy.capabilities == initial.capabilities)
        }
    }

    @Test("a bad file on reload is rejected with every problem, so the caller keeps the old policy and logs why")
    func reloadRejects() throws {
        try withFiles(registry: "devices:\n  w-1:\n    entitlements: [pedometer]\n") { files, _ in
            let initial = try AccessPolicyLoader.load(files).policy
            try "devices:\n  w-1:\n    entitlements: [pedometr]\n".write(toFile: files.registry!, atomically: true, encoding: .utf8)
            let outcome = AccessPolicyLoader.reload(files, current: initial)
            guard case .rejected(let error) = outcome else {
                Issue.record("expected rejected")
                return
            }
            #expect(error.issues.map(\.source) == ["\(files.registry!):3"])
            #expect(error.issues.first?.message.contains("did you mean 'pedometer'?") == true)

            // Truncated while the editor saves: also rejected rather than closing the gateway to everyone.
            try "".write(toFile: files.registry!, atomically: true, encoding: .utf8)
            guard case .rejected = AccessPolicyLoader.reload(files, current: initial) else {
                Issue.record("expected rejected")
                return
            }
            try FileManager.default.removeItem(atPath: files.registry!)
            guard case .rejected = AccessPolicyLoader.reload(files, current: initial) else {
                Issue.record("expected rejected")
                return
            }
        }
    }

    @Test("problems of both files are reported together")
    func bothFiles() throws {
        try withFiles(registry: "open: perhaps\n", capabilities: "rules:\n  - capabilities: [sonar]\n    models: [x]\n    platforms: {iOS: \"1\"}\n") { files, _ in
            #expect(throws: ConfigurationError.self) { try AccessPolicyLoader.load(files) }
            do throws(ConfigurationError) {
                _ = try AccessPolicyLoader.load(files)
            } catch {
                #expect(error.issues.map(\.key) == ["open", "rules[0].capabilities[0]"])
            }
        }
    }

    @Test("the reload outcome is logged: replaced at info, rejected at error with the problems")
    func logging() throws {
        let recorder = RecordingLogHandler.Recorder()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(recorder: recorder) }
        try withFiles(registry: "devices:\n  w-1:\n    entitlements: [nonsense]\n") { files, _ in
            AccessPolicyLoader.reload(files, current: AccessPolicy(registry: .closed, capabilities: .empty)).log(to: logger, files: files)
        }
        let entries = recorder.entries
        #expect(entries.count == 1)
        #expect(entries.first?.level == .error)
        #expect(entries.first?.message.hasPrefix("reload rejected, keeping the previous device registry and capability table") == true)
        #expect(entries.first?.message.contains("unknown entitlement 'nonsense'") == true)
    }

    @Test("after a reload the shards re-resolve: entitlement changes republish availability without losing learnt state")
    func reloadIntoAccessControl() throws {
        try withFiles(registry: "devices:\n  watch-1:\n    entitlements: [submersion.shallow]\n") { files, _ in
            let initial = try AccessPolicyLoader.load(files).policy
            var access = AccessControl(policy: initial)
            let id = DeviceID("watch-1")!
            let hello = DeviceDescriptor(model: "Apple Watch Ultra 2", platform: "watchOS", osVersion: "10.1", app: "a", authorization: .authorized)
            #expect(access.admit(.hello, from: id, update: .hello(hello, retained: true), receivedAt: 1).availability?.snapshot.maximumDepth == 6)
            try "devices:\n  watch-1:\n    entitlements: [submersion.full]\n".write(toFile: files.registry!, atomically: true, encoding: .utf8)
            guard case .replaced(let loaded) = AccessPolicyLoader.reload(files, current: access.policy) else {
                Issue.record("expected replaced")
                return
            }
            let changes = access.replacePolicy(loaded.policy, date: 2)
            #expect(changes.map(\.snapshot.maximumDepth) == [40])
            #expect(access.check(.submersionMeasurement, from: id) == .allowed(maximumDepth: 40))
        }
    }
}

/// Collects log entries for assertions.
struct RecordingLogHandler: LogHandler {
    final class Recorder: Sendable {
        private let stored = LockedState<[(level: Logger.Level, message: String)]>([])
        var entries: [(level: Logger.Level, message: String)] { stored.withLock { $0 } }
        func append(_ level: Logger.Level, _ message: String) { stored.withLock { $0.append((level, message)) } }
    }

    let recorder: Recorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        recorder.append(event.level, "\(event.message)")
    }
}
