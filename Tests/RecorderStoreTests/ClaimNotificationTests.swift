import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Locking
import PostgresStore
import PostgresTestSupport
import RecorderStore
import TelemetryCore
import Testing

/// The store's claim notifications (schema migration 2) through ``PostgresClaimListener``, on a
/// real PostgreSQL (`WG_TEST_POSTGRES_URL`): every claim is notified on commit, in order, with
/// its device, epoch and instance; snapshot writes notify nothing; the owner check after LISTEN
/// reports the claimed devices another instance owns.
@Suite("PostgreSQL claim notifications", .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct ClaimNotificationTests {
    /// A listener session running on its own task, its events collected.
    final class Session: Sendable {
        let events = LockedState<[PostgresClaimListener.Event]>([])
        /// How the session ended (nil: still running).
        let ending = LockedState<String?>(nil)
        private let task: Task<Void, any Error>

        init(_ client: PostgresStoreClient, instance: String, claimed: [DeviceID], probeInterval: Double = 5, probeDeadline: Double = 3) {
            let (events, ending) = (events, ending)
            task = Task {
                do {
                    try await PostgresClaimListener(client).session(
                        instance: instance, probeInterval: probeInterval, probeDeadline: probeDeadline, claimed: { claimed }
                    ) { event in events.withLock { $0.append(event) } }
                    ending.withLock { $0 = "returned" }
                } catch {
                    ending.withLock { $0 = "\(error)" }
                    throw error
                }
            }
        }

        /// How the session ended, once it did within `timeout` seconds (polled).
        func ended(within timeout: Double) async throws -> String? {
            let deadline = ContinuousClock.now + .seconds(timeout)
            while ending.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            return ending.withLock { $0 }
        }

        /// The events once there are at least `count` (polled, bounded by `timeout` seconds).
        func wait(for count: Int, within timeout: Double = 5) async throws -> [PostgresClaimListener.Event] {
            let deadline = ContinuousClock.now + .seconds(timeout)
            while events.withLock({ $0.count }) < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            return events.withLock { $0 }
        }

        /// Ends the session; it returns without an error when cancelled.
        func stop() async throws {
            task.cancel()
            try await task.value
        }
    }

    static let (watch, other, sentinel) = (DeviceID("notify-conf-1")!, DeviceID("notify-conf-2")!, DeviceID("notify-conf-3")!)

    static func claim(_ device: DeviceID, _ instance: String, _ epoch: Int64, checked: Bool = false) -> PostgresClaimListener.Event {
        .claim(DeviceClaimNotice(device: device, owner: DeviceOwnership(instance: instance, epoch: epoch)), checked: checked)
    }

    @Test("claims are notified in commit order with device, epoch and instance; snapshot writes notify nothing; the owner check reports other owners")
    func notifications() async throws {
        try await TestPostgres.withStore { client in
            let store = PostgresDeviceStateStore(client)
            let session = Session(client, instance: "observer", claimed: [])
            #expect(try await session.wait(for: 1) == [.listening])

            let first = try await store.claim(Self.watch, instance: "gw-a")
            // Neither a fenced nor an unfenced snapshot write is a claim.
            _ = try await store.save(fenced: [FencedSnapshot(device: Self.watch, epoch: first.epoch, snapshot: StoreConformance.snapshot(1))])
            try await store.save([(device: Self.other, snapshot: StoreConformance.snapshot(2))])
            _ = try await store.claim(Self.watch, instance: #"gw "b", 2"#)
            _ = try await store.claim(Self.other, instance: "gw-a")
            _ = try await store.save(fenced: [FencedSnapshot(device: Self.other, epoch: 1, snapshot: StoreConformance.snapshot(3))])
            _ = try await store.claim(Self.sentinel, instance: "gw-c")
            let events = try await session.wait(for: 5)
            #expect(events == [.listening, Self.claim(Self.watch, "gw-a", 1), Self.claim(Self.watch, #"gw "b", 2"#, 2), Self.claim(Self.other, "gw-a", 1), Self.claim(Self.sentinel, "gw-c", 1)])
            try await session.stop()

            // gw-a holds watch (claimed away by gw "b", 2 since) and other (still its own).
            let check = Session(client, instance: "gw-a", claimed: [Self.watch, Self.other])
            #expect(try await check.wait(for: 2) == [.listening, Self.claim(Self.watch, #"gw "b", 2"#, 2, checked: true)])
            try await check.stop()
            #expect(check.events.withLock { $0.count } == 2, "nothing about its own device")
        }
    }

    @Test("a server process that stops answering without closing the connection (SIGSTOP) ends the session within the probe's interval and deadline; without the probe it does not")
    func frozenServerEndsSession() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let client = TestPostgres.client(settings)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let admin = try await TestStoreSession.connect(settings)
            let probed = Session(client, instance: "gw-a", claimed: [], probeInterval: 0.2, probeDeadline: 0.5)
            let unprobed = Session(client, instance: "gw-b", claimed: [], probeInterval: 3600, probeDeadline: 3600)
            do {
                // Both listening before their server processes are looked up (on a busy machine a
                // session's connection may take seconds; a missing one would leave one process).
                let probedEvents = try await probed.wait(for: 1, within: 30)
                let unprobedEvents = try await unprobed.wait(for: 1, within: 30)
                try #require(probedEvents == [.listening] && unprobedEvents == [.listening], "both listening: \(probedEvents), \(unprobedEvents)")
                let processes = try await admin.claimListenerProcesses()
                #expect(processes.count == 2)
                for pid in processes { kill(pid, SIGSTOP) }
                defer { for pid in processes { kill(pid, SIGCONT) } }
                let start = ContinuousClock.now
                let ending = try await probed.ended(within: 3)
                let took = ContinuousClock.now - start
                #expect(ending != nil && ending != "returned", "the probed session ends with an error: \(ending ?? "still running")")
                #expect(took < .seconds(2), "within interval + deadline (0.7 s) and some: \(took)")
                #expect(unprobed.ending.withLock { $0 } == nil, "the control: without the probe, the frozen server goes unnoticed")
            } catch {
                await admin.close()
                throw error
            }
            try await unprobed.stop()
            await admin.close()
        }
    }
}
