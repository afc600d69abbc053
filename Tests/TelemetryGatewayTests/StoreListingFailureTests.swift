@testable import GatewayJournal
import Foundation
import Locking
import Ownership
import Prometheus
import RecorderStore
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// A gateway that starts while its store cannot list the stored devices (PostgreSQL down at
/// start) must not start those devices fresh: each device's first frame asks the store for its
/// snapshot until a listing succeeds (docs/reliability.md, *Restored lazily*). Real SQLite store,
/// no broker.
@Suite("Device state when the store cannot list its devices at start")
struct StoreListingFailureTests {
    /// The real store whose listing fails while `listable` is false (everything else forwards).
    final class UnlistableStore: DeviceSnapshotStoring {
        let base: DeviceStateStore
        let listable = LockedState(false)
        init(_ base: DeviceStateStore) { self.base = base }

        var location: String { base.location }
        func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws { try await base.save(snapshots) }
        func snapshot(of device: DeviceID) async throws -> DeviceSnapshot? { try await base.snapshot(of: device) }
        func devices() async throws -> [DeviceID] {
            guard listable.withLock({ $0 }) else { throw CocoaError(.fileReadUnknown) }
            return try await base.devices()
        }
        func prune(lastSeenBefore cutoff: Double) async throws -> Int { try await base.prune(lastSeenBefore: cutoff) }
    }

    /// Runs one worker over `store` on the status frames given, until they are processed.
    static func run(store: any DeviceSnapshotStoring, directory: URL, run: Int, states: [String]) async throws -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        let journal = try InboundJournal(path: directory.appendingPathComponent("journal-\(run).bin").path, capacity: 1 << 20, clock: SystemGatewayClock())
        let queue = HandoffQueue<WorkItem>(capacity: 64, clock: SystemGatewayClock())
        var worker = try WorkerHarness.worker(
            broker: ScriptedBroker(acknowledgeAtOnce: true), journal: journal, queue: queue, factory: PrometheusMetricsFactory(registry: registry),
            store: store)
        for (index, state) in states.enumerated() {
            try WorkerHarness.enqueueStatus(state, of: "listed-watch", receivedAt: 1_000 + Double(index), journal: journal, queue: queue)
        }
        queue.close()
        await worker.run()
        return registry
    }

    /// A first run leaves the device's state in the store (written at its shutdown); a second
    /// starts on the same file with the listing failing or not, and its registry is returned.
    static func restart(listable: Bool) async throws -> PrometheusCollectorRegistry {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = try DeviceStateStore(path: directory.appendingPathComponent("state.sqlite").path)
        _ = try await Self.run(store: base, directory: directory, run: 1, states: ["online"])
        #expect(try await base.devices().map(\.rawValue) == ["listed-watch"])
        let store = UnlistableStore(base)
        store.listable.withLock { $0 = listable }
        return try await Self.run(store: store, directory: directory, run: 2, states: ["online"])
    }

    @Test("the listing fails at start: the device's first frame restores its stored snapshot all the same")
    func restoresWithoutListing() async throws {
        // Without asking the store at the first frame, the device would start fresh.
        let registry = try await Self.restart(listable: false)
        #expect(registry.value(of: "gateway_devices_restored_total") == 1)
    }

    @Test("the listing works: the stored device is restored, as before")
    func listedAsBefore() async throws {
        let registry = try await Self.restart(listable: true)
        #expect(registry.value(of: "gateway_devices_restored_total") == 1)
    }
}
