import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryGateway
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The journal's fault paths seen from outside, through a real broker: a small ring that wraps
/// many times and a clean restart (nothing replayed), a full ring pinned by one device's
/// garbage (another device's frames still flow), a full disk under the journal, and a disk that
/// fails the journal's sync. docs/reliability.md quotes them.
@Suite("Journal: laps, clean restarts and a ring pinned by garbage")
struct JournalFaultTests {
    @Test("a small ring that wrapped many times: after SIGTERM the restarted gateway replays nothing")
    func cleanRestartAfterManyLapsReplaysNothing() async throws {
        let broker = try await TestBroker.started()
        let stream = PresenceStream(device: "laps-1", count: 20_000)
        let counter = PresenceCounter(stream)
        let observer = try await counter.observe(broker)
        let data = broker.directory.appendingPathComponent("gateway-data")
        // 20,000 frames of ≈ 330 journal bytes through a 1 MiB ring: six laps.
        let arguments = [
            "--set", "mqtt.clientId=gw-laps", "--set", "registry.file=null", "--set", "journal.sizeBytes=1048576", "--set",
            "pipeline.maxPayloadBytes=65536",
        ]
        let first = try GatewayProcess(broker: broker, arguments: arguments, dataDirectory: data)
        try await first.waitUntilSubscribed()
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await stream.publish(with: device)
        try await counter.wait(forDistinct: stream.count, timeout: 120)
        first.signal(SIGTERM)
        #expect(try await first.waitForExit(timeout: 40) == 0, "log:\n\(first.log)")

        // The journal is replayed before subscribing, so once the process logs its subscription
        // the replay (if any) is logged too. (The broker's log already holds the first process's
        // subscription under the same client id, so it cannot tell.)
        let second = try GatewayProcess(broker: broker, arguments: arguments, dataDirectory: data)
        try await second.waitForLog("subscribed to", timeout: 30)
        #expect(!second.log.contains("replaying"), "a clean restart replayed frames that were done with:\n\(second.log.prefix(2000))")
        #expect(!second.log.contains("stopped at a bad record"))
        #expect(counter.counts.messages == stream.count, "\(counter.counts.messages - stream.count) outputs repeated")
        second.signal(SIGTERM)
        #expect(try await second.waitForExit(timeout: 40) == 0, "log:\n\(second.log)")
        await device.shutdown()
        await observer.shutdown()
    }

    @Test("one device's 60 KB garbage keeps a 1 MiB journal full: another device's 40 presence changes still arrive within 15 s")
    func garbageDoesNotStarveACalmDevice() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker) {
            $0.journal.sizeBytes = 1_048_576
            $0.pipeline.maximumPayloadBytes = 65_536
            // A long aggregation window: before the fix, each rejected frame held its record until the window's report.
            $0.pipeline.errorReportInterval = 30
        }
        let flooder = try await TestClients.connected(try TestClients.configuration(broker))
        let garbage = [UInt8](repeating: UInt8(ascii: "x"), count: 60_000)
        // 50 frames/s (3 MB/s): far below what the gateway processes even on a loaded machine, so
        // only frames held after processing can fill the ring (16 frames fill it).
        let flood = Task {
            while !Task.isCancelled {
                try await flooder.send(MQTTMessage(topic: "wearables/flood-1/status", payload: garbage))
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        // The flood is under way once the gateway has rejected a ring's worth of it.
        try await run.waitForMetric("gateway_frames_rejected_total", atLeast: 40, timeout: 60)

        let calm = PresenceStream(device: "calm-1", count: 40)
        let counter = PresenceCounter(calm)
        let listener = try await TestClients.subscribed(broker, to: ["gateway/calm-1/connection"], onMessage: counter.handler)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        let started = ContinuousClock.now
        try await calm.publish(with: device)
        try await counter.wait(forDistinct: calm.count, timeout: 15)
        let elapsed = ContinuousClock.now - started
        print("40 presence changes of the calm device during the flood took \(elapsed)")
        flood.cancel()
        _ = await flood.result
        #expect(counter.counts.distinct == calm.count)
        await device.shutdown()
        await listener.shutdown()
        await flooder.shutdown()
        try await run.stop()
    }

    @Test("the wall clock stepped an hour back: device snapshots are still written, so held frames leave the journal")
    func snapshotScheduleIgnoresAWallClockStep() async throws {
        let broker = try await TestBroker.started()
        let clock = try SteppedWallClock(directory: broker.directory)
        let (observer, metrics) = try await TestClients.observer(broker, subscribedTo: ["gateway/metrics"])
        let gateway = try GatewayProcess(
            broker: broker, arguments: ["--set", "registry.file=null", "--set", "metrics.publishInterval=0.2"], environment: clock.environment)
        try await gateway.waitForLog("subscribed to", timeout: 30)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        // Status frames can change a device's snapshot: each keeps its journal record until the
        // snapshot written after it is stored (every state.snapshotInterval, 0.5 s).
        let before = PresenceStream(device: "step-1", count: 50)
        try await before.publish(with: device)
        try await Self.waitForEmptyJournal(metrics, processed: 50, "before the step")
        try clock.step(to: -3600)
        let after = PresenceStream(device: "step-2", count: 50)
        try await after.publish(with: device)
        // On the wall clock the next snapshot would be due an hour from now, pinning these frames.
        try await Self.waitForEmptyJournal(metrics, processed: 100, "after the step")
        gateway.signal(SIGTERM)
        #expect(try await gateway.waitForExit(timeout: 40) == 0)
        await device.shutdown()
        await observer.shutdown()
    }

    @Test("a full disk under the journal: frames go on unjournaled, counted and logged, and every output still arrives")
    func fullDiskUnderTheJournal() async throws {
        let broker = try await TestBroker.started()
        let stream = PresenceStream(device: "full-1", count: 3_000)
        let counter = PresenceCounter(stream)
        let outputs = try await counter.observe(broker)
        let (observer, metrics) = try await TestClients.observer(broker, subscribedTo: ["gateway/metrics"])
        // A real full file system: a 128 KiB tmpfs, mounted in the gateway's own user and mount
        // namespaces (no privileges needed), under a 32 MiB journal made sparse. ≈ 120 journal
        // bytes per frame: the pages run out after about 1,000 of the 3,000 frames (the head
        // moves on into new pages as records are released).
        let small = broker.directory.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
        let gateway = try GatewayProcess(
            broker: broker,
            arguments: [
                "--set", "registry.file=null", "--set", "metrics.publishInterval=0.2",
                "--set", "journal.path=\(small.appendingPathComponent("journal.bin").path)",
            ],
            launcher: ["/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh", "-c",
                       #"mount -t tmpfs -o size=128k tmpfs "$1" && shift && exec "$@""#, "sh", small.path])
        try await gateway.waitUntilSubscribed()
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await stream.publish(with: device)

        // Nothing the broker handed over is lost while the process lives.
        try await counter.wait(forDistinct: stream.count, timeout: 120)
        // Every frame the journal could not take is counted, and those it took are released.
        try await Self.waitForEmptyJournal(metrics, processed: Double(stream.count), "with the frames the journal refused counted")
        let final = try #require(PrometheusText.latest(in: metrics.messages))
        let refused = final.sum("gateway_journal_bypassed_total")
        #expect(refused >= 1_000 && refused < Double(stream.count), "\(refused) frames went on unjournaled")
        #expect(gateway.log.contains("cannot write the journal"), "log:\n\(gateway.log.suffix(3000))")
        #expect(gateway.log.contains("No space left on device"))
        gateway.signal(SIGTERM)
        #expect(try await gateway.waitForExit(timeout: 40) == 0, "log:\n\(gateway.log.suffix(3000))")
        await device.shutdown()
        await observer.shutdown()
        await outputs.shutdown()
    }

    /// Root, `unshare`, `mkfs.ext4` and loop devices: what the failing-disk test below needs.
    static let canMountALoopDevice =
        getuid() == 0 && FileManager.default.fileExists(atPath: "/dev/loop-control")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") && FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.ext4")

    @Test(
        "a disk that fails the journal's sync: counted and logged, and every output still arrives",
        .enabled(if: canMountALoopDevice, "needs root, unshare, mkfs.ext4 and loop devices"))
    func failingSyncIsCountedAndLogged() async throws {
        let broker = try await TestBroker.started()
        let stream = PresenceStream(device: "sync-1", count: 600)
        let counter = PresenceCounter(stream)
        let outputs = try await counter.observe(broker)
        let (observer, metrics) = try await TestClients.observer(broker, subscribedTo: ["gateway/metrics"])
        // A real disk that fails writes: an ext4 file system on a loop device whose 64 MiB image
        // is a sparse file on an 8 MiB tmpfs, then filled. Writes land in the page cache; the
        // write-back a sync starts cannot get tmpfs pages, the loop device reports an I/O error
        // and msync fails. All of it in the gateway's own mount namespace: the mounts go with
        // the process, and the loop device with its mount (autoclear), however the test ends.
        let disk = broker.directory.appendingPathComponent("failing-disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let setUp = #"""
            mount -t tmpfs -o size=8m tmpfs "$1" && truncate -s 64M "$1/disk.img" && mkfs.ext4 -q "$1/disk.img" \
              && mkdir "$1/fs" && mount -o loop "$1/disk.img" "$1/fs" \
              && { dd if=/dev/zero of="$1/filler" bs=64k 2>/dev/null; true; } && shift && exec "$@"
            """#
        let gateway = try GatewayProcess(
            broker: broker,
            arguments: [
                "--set", "registry.file=null", "--set", "metrics.publishInterval=0.2", "--set", "journal.flushInterval=0.2",
                "--set", "journal.sizeBytes=1048576", "--set", "pipeline.maxPayloadBytes=65536",
                "--set", "journal.path=\(disk.appendingPathComponent("fs/journal.bin").path)",
            ],
            launcher: ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", setUp, "sh", disk.path])
        try await gateway.waitUntilSubscribed()
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await stream.publish(with: device)

        // Frames keep flowing: nothing the broker handed over is lost while the process lives.
        try await counter.wait(forDistinct: stream.count, timeout: 120)
        try await metrics.wait(timeout: 15, "a failed sync counted") { messages in
            (PrometheusText.latest(in: messages)?.sum("gateway_journal_sync_failures_total") ?? 0) > 0
        }
        #expect(gateway.log.contains("cannot write the journal"), "log:\n\(gateway.log.suffix(3000))")
        #expect(gateway.log.contains("to disk"))
        gateway.signal(SIGTERM)
        let status = try await gateway.waitForExit(timeout: 40)
        #expect(status == 0 || status == 75, "log:\n\(gateway.log.suffix(3000))")
        await device.shutdown()
        await observer.shutdown()
        await outputs.shutdown()
    }

    /// Waits until the gateway's published metrics show `processed` accepted frames and no live journal record.
    private static func waitForEmptyJournal(_ metrics: MessageCollector, processed: Double, _ when: String) async throws {
        try await metrics.wait(timeout: 15, "\(Int(processed)) frames accepted and the journal empty \(when)") { messages in
            guard let text = PrometheusText.latest(in: messages) else { return false }
            return text.sum("gateway_frames_accepted_total") >= processed && text.sum("gateway_journal_live_records") == 0
        }
    }
}
