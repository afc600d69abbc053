@testable import GatewayJournal
import Foundation
import GRDB
import Locking
import Ownership
import Prometheus
import RecorderStore
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// A device whose stored state cannot be read at its first frame because the store does not
/// answer must not start fresh: that loses for good what the snapshot holds (a workout session).
/// Its frames wait, in order, and are processed once the store gives the state; only a snapshot
/// that does not decode makes it start fresh (docs/reliability.md, *Restored lazily*). Real
/// SQLite store, no broker.
@Suite("Device state when the store does not answer at a device's first frame")
struct StoreReadFailureTests {
    /// The real store whose snapshot reads fail `failures` times, each taking `failingSeconds`
    /// of `clock` (a read that times out), then forward.
    final class SilentStore: DeviceSnapshotStoring {
        let base: DeviceStateStore
        let clock: ManualGatewayClock
        let failures: LockedState<Int>
        let reads = LockedState(0)
        static let failingSeconds = 2.0
        init(_ base: DeviceStateStore, clock: ManualGatewayClock, failures: Int) {
            self.base = base
            self.clock = clock
            self.failures = LockedState(failures)
        }

        var location: String { base.location }
        func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws { try await base.save(snapshots) }
        func snapshot(of device: DeviceID) async throws -> DeviceSnapshot? {
            reads.withLock { $0 += 1 }
            let fails = failures.withLock { failures in
                defer { failures = max(0, failures - 1) }
                return failures > 0
            }
            if fails {
                clock.advance(by: Self.failingSeconds)
                throw CocoaError(.fileReadUnknown)
            }
            return try await base.snapshot(of: device)
        }
        func devices() async throws -> [DeviceID] { try await base.devices() }
        func prune(lastSeenBefore cutoff: Double) async throws -> Int { try await base.prune(lastSeenBefore: cutoff) }
    }

    static let device = "silent-watch"

    /// Runs one worker over `store` on `items` (frames of `device` as owner, or ticks), until
    /// they are processed; returns its registry and the topics it published.
    static func run(store: any DeviceSnapshotStoring, clock: ManualGatewayClock, directory: URL, run: Int, items: [Item], limitBytes: Int = 4 << 20) async throws
        -> (registry: PrometheusCollectorRegistry, published: [String])
    {
        let registry = PrometheusCollectorRegistry()
        let journal = try InboundJournal(path: directory.appendingPathComponent("journal-\(run).bin").path, capacity: 1 << 20, clock: clock)
        let queue = HandoffQueue<WorkItem>(capacity: 64, clock: clock)
        let broker = ScriptedBroker(acknowledgeAtOnce: true)
        var worker = try WorkerHarness.worker(
            broker: broker, journal: journal, queue: queue, factory: PrometheusMetricsFactory(registry: registry), store: store, clock: clock,
            restoreWaitLimitBytes: limitBytes)
        for (index, item) in items.enumerated() {
            switch item {
            case .status(let state):
                try WorkerHarness.enqueueStatus(state, of: device, receivedAt: 1_000 + Double(index), journal: journal, queue: queue)
            case .tick(let after):
                // A tick `after` seconds on: the worker reads the time from it.
                _ = queue.pushControl(.tick(clock.wallTime() + after, clock.monotonicNow() + .seconds(after)))
            }
        }
        queue.close()
        await worker.run()
        return (registry, broker.sentTopics)
    }

    enum Item {
        case status(String)
        case tick(after: Double)
    }

    /// A first run leaves the device online in the store; the second runs `items` over `store(base)`.
    static func restart(
        _ items: [Item], limitBytes: Int = 4 << 20, prepare: (String) async throws -> Void = { _ in },
        store: (DeviceStateStore, ManualGatewayClock) -> any DeviceSnapshotStoring
    ) async throws
        -> (registry: PrometheusCollectorRegistry, published: [String])
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("silent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualGatewayClock(wallTime: 1_800_000_000)
        let base = try DeviceStateStore(path: directory.appendingPathComponent("state.sqlite").path)
        _ = try await Self.run(store: base, clock: clock, directory: directory, run: 1, items: [.status("online")])
        #expect(try await base.devices().map(\.rawValue) == [device])
        try await prepare(base.location)
        return try await Self.run(store: store(base, clock), clock: clock, directory: directory, run: 2, items: items, limitBytes: limitBytes)
    }

    @Test("the store fails the first frame's read: its frames wait, and once it answers the device is restored and they are processed, in order")
    func framesWaitForTheRestore() async throws {
        var silent: SilentStore?
        let (registry, _) = try await Self.restart([.status("online"), .status("offline"), .tick(after: 5), .status("online")]) { base, clock in
            let store = SilentStore(base, clock: clock, failures: 1)
            silent = store
            return store
        }
        // Before, the failed read made the device start fresh: restored 0, discarded 1.
        #expect(registry.value(of: "gateway_devices_restored_total") == 1)
        #expect(registry.value(of: "gateway_device_restores_discarded_total") == 0)
        #expect(registry.value(of: "gateway_device_restore_waits_total") == 1)
        #expect(registry.value(of: "gateway_device_restores_abandoned_total") == 0)
        #expect(registry.value(of: "gateway_frames_processed_total") == 3)
        // One failed read and one that answered at the tick: the second frame did not ask again.
        #expect(silent?.reads.withLock { $0 } == 2)
    }

    @Test("the store still fails at the tick: nothing is processed fresh, the frames stay in the journal for the next start")
    func stillWaitingAtStop() async throws {
        let (registry, _) = try await Self.restart([.status("offline"), .tick(after: 5), .status("online")]) { base, clock in
            SilentStore(base, clock: clock, failures: 10)
        }
        #expect(registry.value(of: "gateway_devices_restored_total") == 0)
        #expect(registry.value(of: "gateway_device_restores_discarded_total") == 0)
        #expect(registry.value(of: "gateway_frames_processed_total") == 0)
        #expect(registry.value(of: "gateway_frames_left_in_journal_total") == 2)
    }

    @Test("past the waiting frames' bound the device is given up on: every waiting frame and the new one are processed without the stored state, in order, counted")
    func boundReachedGivesUp() async throws {
        // A status frame of this device is 29 topic and 18 or 19 payload bytes: two fit in 120, a third does not.
        let (registry, _) = try await Self.restart([.status("offline"), .status("online"), .status("offline")], limitBytes: 120) { base, clock in
            SilentStore(base, clock: clock, failures: 10)
        }
        #expect(registry.value(of: "gateway_device_restore_waits_total") == 1)
        #expect(registry.value(of: "gateway_device_restores_abandoned_total") == 1)
        #expect(registry.value(of: "gateway_devices_restored_total") == 0)
        #expect(registry.value(of: "gateway_frames_processed_total") == 3)
        #expect(registry.value(of: "gateway_frames_left_in_journal_total") == 0)
    }

    @Test("a snapshot that does not decode is not a store failure: the device starts fresh at once, nothing waits")
    func unreadableStartsFresh() async throws {
        let (registry, _) = try await Self.restart(
            [.status("offline")],
            prepare: { path in
                // The stored JSON damaged.
                let queue = try DatabaseQueue(path: path)
                try await queue.write { try $0.execute(sql: "UPDATE device_state SET snapshot = ?", arguments: [Data("{not json".utf8)]) }
            }
        ) { base, _ in base }
        #expect(registry.value(of: "gateway_devices_restored_total") == 0)
        #expect(registry.value(of: "gateway_device_restores_discarded_total") == 1)
        #expect(registry.value(of: "gateway_device_restore_waits_total") == 0)
        #expect(registry.value(of: "gateway_frames_processed_total") == 1)
    }
}
