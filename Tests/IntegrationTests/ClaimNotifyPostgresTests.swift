import BrokerTestSupport
import Foundation
import MQTTTransport
import PostgresStore
import PostgresTestSupport
import RecorderStore
import TelemetryCore
import Testing

/// A claim tells the previous owner at once (docs/scale-out.md, *Fencing*): one real
/// `wearable-gateway` in partitioned mode on mosquitto and PostgreSQL owns two streaming devices;
/// the test claims one of them in the store as instance `intruder` (the store's own claim
/// statement, so the store's trigger notifies it). `state.snapshotInterval` is 60 s, so no fenced
/// snapshot write can happen during the test: only the notification (or the owner check after
/// the listener's reconnect) can stop the gateway.
///
/// Control: `WG_FAULT_CLAIM_NOTIFY_OFF=1` (the gateway does not LISTEN) makes both tests fail.
@Suite("Claims notified by PostgreSQL fence the previous owner", .serialized, .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct ClaimNotifyPostgresTests {
    /// How long the gateway may take to stop publishing for a device claimed elsewhere.
    static let bound = 3.0
    static let fault = ProcessInfo.processInfo.environment["WG_FAULT_CLAIM_NOTIFY_OFF"].map { ["WG_FAULT_CLAIM_NOTIFY_OFF": $0] } ?? [:]

    /// One gateway on a fresh database, two devices streaming status frames into it.
    final class Run: @unchecked Sendable {
        let settings: PostgresStoreSettings
        let broker: TestBroker
        let observer: MQTTClient
        let collector: MessageCollector
        let gateway: GatewayProcess
        let client: MQTTClient
        let claimed = DeviceID("notify-watch-1")!
        let other = DeviceID("notify-watch-2")!
        /// The intruder's store client: the store's own claim statement, so the trigger fires.
        let intruder: PostgresStoreClient
        private let intruderPool: Task<Void, Never>
        /// Status frames sent per device.
        private(set) var sent: [DeviceID: Int] = [:]

        init() async throws {
            settings = try await TestPostgres.makeDatabase()
            let url = "postgres://\(settings.user)@\(settings.host):\(settings.port)/\(settings.database)?sslmode=disable"
            broker = try await TestBroker.started()
            (observer, collector) = try await TestClients.observer(
                broker, subscribedTo: ["gateway/+/connection", "gateway/instances/+", "gateway/instances/+/metrics", "gateway/status"])
            gateway = try GatewayProcess(
                broker: broker,
                arguments: ClusterHarness.arguments("gw-a", store: url) + [
                    "--set", "state.snapshotInterval=60",
                ],
                environment: ClaimNotifyPostgresTests.fault)
            try await gateway.waitUntilSubscribed()
            try await ClusterHarness.waitLive(collector, ["gw-a"], count: 1)
            client = try await TestClients.connected(try TestClients.configuration(broker))
            let intruder = TestPostgres.client(settings, label: "intruder")
            self.intruder = intruder
            intruderPool = Task { await intruder.run() }
            // Up to date now, so its claim never waits for the schema lock a test holds.
            try await intruder.check()
        }

        /// Claims the device as `intruder` with the store's own claim statement; returns the epoch.
        func intrude() async throws -> Int64 {
            try await PostgresDeviceStateStore(intruder).claim(claimed, instance: "intruder").epoch
        }

        /// Sends one status frame to each of `devices` (each changes its connection state: one output each).
        func sendRound(_ devices: [DeviceID]? = nil) async throws {
            for device in devices ?? [claimed, other] {
                let count = sent[device, default: 0]
                sent[device] = count + 1
                try await client.send(
                    MQTTMessage(topic: "wearables/\(device)/status", string: #"{"state":"\#(count % 2 == 0 ? "online" : "offline")"}"#, qos: .atLeastOnce))
            }
        }

        /// Streams rounds 20 ms apart until `predicate` holds (`timeout` bounds the wait).
        func stream(_ what: String, timeout: Double, until predicate: @escaping @Sendable ([MQTTMessage]) -> Bool) async throws -> [MQTTMessage] {
            let deadline = ContinuousClock.now + .seconds(timeout)
            while ContinuousClock.now < deadline {
                try await sendRound()
                if let messages = try? await collector.wait(timeout: 0.02, what, until: predicate) { return messages }
            }
            return try await collector.wait(timeout: 0.1, what, until: predicate)
        }

        /// Waits until the claimed device's last status frame is in its stored snapshot: its
        /// context write is done, so none is in flight when the test claims the device.
        func settled() async throws {
            let store = PostgresDeviceStateStore(intruder)
            let last = sent[claimed, default: 0] - 1
            let expected: ConnectionState = last % 2 == 0 ? .connected : .disconnected
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if try await store.snapshot(of: claimed)?.connection == expected { return }
                try await Task.sleep(for: .milliseconds(20))  // polling the store under a deadline
            }
            Issue.record("\(claimed)'s last status frame (\(expected)) was not written to the store within 10 s")
        }

        /// The owner's epoch on the claimed device's outputs once both devices are served.
        func served() async throws -> Int64 {
            let (claimed, other) = (claimed.rawValue, other.rawValue)
            let messages = try await stream("outputs of both devices from gw-a", timeout: 20) { messages in
                [claimed, other].allSatisfy { device in FencingPostgresTests.outputs(messages, of: device).contains { $0.instance == "gw-a" } }
            }
            return try #require(FencingPostgresTests.outputs(messages, of: claimed).first { $0.instance == "gw-a" }?.epoch)
        }

        /// While frames stream (a round every 20 ms), runs `trigger`, then polls the gateway's log
        /// until it names `intruder`; returns the seconds from just before `trigger` (nil: not
        /// within the bound).
        func waitForFencing(after trigger: () async throws -> Void) async throws -> Double? {
            // The other device's frames keep coming meanwhile, so the fencing happens amid traffic.
            // The claimed device's do not: a status frame is a context frame, whose snapshot is
            // written (fenced) at the end of its batch, and a write after the claim would be refused
            // and fence the device before the notification could (docs/scale-out.md, *Context*).
            try await settled()
            let streaming = Task { [other] in
                while !Task.isCancelled {
                    try await sendRound([other])
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let start = ContinuousClock.now
            do {
                try await trigger()
            } catch {
                streaming.cancel()
                _ = try? await streaming.value
                throw error
            }
            let line = "\(claimed): the store notified a claim, intruder claimed"
            let named = await poll(gateway.logURL, timeout: ClaimNotifyPostgresTests.bound) { $0.contains(line) }
            let elapsed = ContinuousClock.now - start
            streaming.cancel()
            _ = try? await streaming.value
            guard named else { return nil }
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }

        /// After the fencing: streams ~3 s more, then checks what was published and counted.
        /// Returns the messages seen and the index of the first metrics message counting the fencing.
        @discardableResult
        func checkAfterFencing(epoch: Int64, cause: String) async throws -> (messages: [MQTTMessage], mark: Int) {
            let (claimed, other) = (claimed.rawValue, other.rawValue)
            let marked = try await collector.wait(timeout: 5, "gw-a's metrics counting the fencing") {
                FencingPostgresTests.firstMetric($0, "gw-a", "gateway_cluster_fenced_total", atLeast: 1) != nil
            }
            // Metrics go out on the connection the outputs go out on, in order: an output published
            // before the fencing comes before this message.
            let mark = try #require(FencingPostgresTests.firstMetric(marked, "gw-a", "gateway_cluster_fenced_total", atLeast: 1))
            let otherBefore = FencingPostgresTests.outputs(marked, of: other).count
            for _ in 0..<150 {  // ~3 s of frames
                try await sendRound()
                try await Task.sleep(for: .milliseconds(20))
            }
            // Every frame of the claimed device is accounted for: published before the fencing, or
            // dropped (counted) after it; the other device's last frame is published.
            let sentClaimed = Double(sent[self.claimed] ?? 0)
            let sentOther = sent[self.other] ?? 0
            let later = try await collector.wait(timeout: 10, "every frame accounted for") { messages in
                let published = Double(FencingPostgresTests.outputs(messages, of: claimed).count)
                return published + (ClusterHarness.metric(messages, "gw-a", "gateway_cluster_fenced_frames_total") ?? 0) >= sentClaimed
                    && FencingPostgresTests.outputs(messages, of: other).count >= sentOther
            }
            let after = FencingPostgresTests.outputs(later, of: claimed).filter { $0.index > mark }
            #expect(!after.contains { $0.instance == "gw-a" && $0.epoch == epoch }, "no output under gw-a's old epoch after the fencing: \(after.count)")
            // Nor under a new claim: gw-a's plan still names it the owner, but it claims the
            // device again only after cluster.expiry + warm-up + 2 × state.snapshotInterval (126 s here).
            #expect(after.isEmpty, "nothing published for \(claimed) after the fencing: \(after.map { "\($0.instance ?? "-")/\($0.epoch ?? 0)" })")
            #expect(FencingPostgresTests.outputs(later, of: other).count > otherBefore, "the other device's outputs continue")
            #expect(FencingPostgresTests.outputs(later, of: other).allSatisfy { $0.instance == "gw-a" && $0.epoch != nil })
            #expect(ClusterHarness.metric(later, "gw-a", "gateway_cluster_fenced_total") == 1, "one device fenced once")
            #expect(ClusterHarness.metric(later, "gw-a", "gateway_cluster_fenced_total", labels: ["cause": cause]) == 1)
            let published = FencingPostgresTests.outputs(later, of: claimed).count
            let dropped = ClusterHarness.metric(later, "gw-a", "gateway_cluster_fenced_frames_total") ?? 0
            #expect(Double(published) + dropped == sentClaimed, "each frame of the claimed device published or counted once: \(published) + \(dropped) of \(sentClaimed)")
            print("claim-notify: \(claimed) \(Int(sentClaimed)) frames: \(published) published (epoch \(epoch)), \(Int(dropped)) dropped as fenced; \(other): \(sentOther) frames, \(FencingPostgresTests.outputs(later, of: other).count) outputs")
            return (later, mark)
        }

        func stop() async throws {
            print(gateway.log.split(separator: "\n").filter { $0.contains("claim") }.joined(separator: "\n"))
            await client.shutdown()
            try await ClusterHarness.stop([gateway], collector: collector)
            await observer.shutdown()
            intruderPool.cancel()
        }
    }


    @Test("a claim by another instance stops the owner publishing for the device within the bound, counted and logged; a malformed notification is counted")
    func notifiedClaimFences() async throws {
        let run = try await Run()
        try await run.gateway.waitForLog("claim notifications", timeout: 10)  // listening (or, in the control, not)
        let epoch = try await run.served()

        // Not a claim: counted and logged, nothing else.
        let session = try await TestStoreSession.connect(run.settings)
        do {
            try await session.notifyClaimChannel("not a claim")
        } catch {
            await session.close()
            throw error
        }
        await session.close()

        // From before the claim statement: the figure includes its round trip (an upper bound).
        let claimIndex = run.collector.messages.count
        var intruder: Int64 = 0
        let latency = try await run.waitForFencing { intruder = try await run.intrude() }
        #expect(intruder > epoch)
        #expect(latency != nil, "gw-a did not log the fencing of \(run.claimed) by intruder within \(Self.bound) s; log:\n\(run.gateway.log)")
        print("claim-notify: claim committed → owner fenced (log line seen) in \(latency.map { String(format: "%.3f", $0) } ?? "-") s")
        if latency == nil {
            // What the control shows: the old owner goes on publishing under its old epoch.
            let (claimedAt, name) = (claimIndex, run.claimed.rawValue)
            let later = try await run.stream("more outputs of \(run.claimed)", timeout: 5) { messages in
                FencingPostgresTests.outputs(messages, of: name).filter { $0.index > claimedAt && $0.epoch == epoch }.count >= 20
            }
            let stale = FencingPostgresTests.outputs(later, of: run.claimed.rawValue).filter { $0.index > claimedAt && $0.epoch == epoch }.count
            print("claim-notify: \(stale) outputs of \(run.claimed) under gw-a's old epoch \(epoch) after the intruder's claim (epoch \(intruder))")
        } else {
            let (seen, mark) = try await run.checkAfterFencing(epoch: epoch, cause: "notified")
            let window = FencingPostgresTests.outputs(seen, of: run.claimed.rawValue).filter { $0.index > claimIndex && $0.index < mark }.count
            print("claim-notify: \(window) outputs of \(run.claimed) under the old epoch between the claim and the fencing")
            let messages = run.collector.messages
            #expect(ClusterHarness.metric(messages, "gw-a", "gateway_cluster_claim_notices_malformed_total") == 1)
            #expect(ClusterHarness.metric(messages, "gw-a", "gateway_cluster_claim_notices_total", labels: ["source": "notified"]) ?? 0 >= 3, "both devices' claims by gw-a and the intruder's")
        }
        try await run.stop()
    }

    @Test("a claim made while the listener's connection is away is noticed after the reconnect by the owner check, within the bound")
    func ownerCheckAfterReconnect() async throws {
        let run = try await Run()
        try await run.gateway.waitForLog("claim notifications", timeout: 10)  // listening (or, in the control, not)
        let epoch = try await run.served()
        try await run.settled()  // no context write in flight at the claim below

        // The listener's session ends, and its reconnect waits (before LISTEN) for the schema
        // lock the test holds: the claim's notification reaches nobody.
        let lock = try await TestStoreSession.connect(run.settings)
        let session = try await TestStoreSession.connect(run.settings)
        let latency: Double?
        do {
            try await lock.holdMigrationLock()
            #expect(try await session.terminateClaimListeners() == 1)
            try await run.gateway.waitForLog("the connection listening to claim notifications", timeout: 5)
            let intruder = try await run.intrude()
            #expect(intruder > epoch)
            latency = try await run.waitForFencing { try await lock.commit() }
        } catch {
            await lock.close()
            await session.close()
            throw error
        }
        await lock.close()
        await session.close()

        #expect(latency != nil, "gw-a did not log the fencing of \(run.claimed) by intruder within \(Self.bound) s of its reconnect; log:\n\(run.gateway.log)")
        print("claim-notify: listener back → owner fenced by the owner check in \(latency.map { String(format: "%.3f", $0) } ?? "-") s")
        if latency != nil {
            try await run.checkAfterFencing(epoch: epoch, cause: "notified")
            let messages = run.collector.messages
            #expect(ClusterHarness.metric(messages, "gw-a", "gateway_cluster_claim_notices_total", labels: ["source": "ownerCheck"]) == 1, "the intruder's claim, found by the check")
            #expect(ClusterHarness.metric(messages, "gw-a", "gateway_cluster_claim_listener_outages_total") == 1)
            #expect(run.gateway.log.contains("listening to claim notifications at"))
        }
        try await run.stop()
    }
}
