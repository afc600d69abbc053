import CoreMetrics
import Foundation
import Testing
import TelemetrySimulation

@testable import TelemetryCore
@testable import TelemetryGateway

/// A device changing owner in the middle of a dive, without a broker: the owner publishes its
/// snapshot every half second (JSON, as on `gateway/cluster/state/{id}`), the other instance
/// keeps it with the frames received after it, and when the owner dies the other restores the
/// snapshot, replays those frames, and goes on. Together they must publish exactly what one
/// uninterrupted processor publishes.
@Suite struct SnapshotHandoverTests {
    /// The shipped capability table, every device allowed.
    static let policy: AccessPolicy = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let table = try! CapabilityTableLoader.load(file: root.appendingPathComponent("config/capabilities.yml").path).table
        return AccessPolicy(registry: .unrestricted, capabilities: table)
    }()
    static let start = 1_700_000_000.0

    /// The messages of a dive whose owner `a` dies before frame `killAt` (its messages up to
    /// then count as published), with `b` taking over; or of one processor (`killAt` nil).
    /// - Returns: the messages, and the number of trail frames `b` replayed.
    static func run(_ scenario: DiveScenario, killAt: Int?, sharing: Bool = true) throws -> (messages: [String], replayed: Int) {
        let frames = scenario.frames(startDate: start).map { InboundFrame(topic: $0.topic(), payload: $0.payload, retained: $0.retain, receivedAt: start + $0.time) }
        // Two instances: the device's owner `a` and the other, `b`, which watches until the kill.
        let device = try #require(DeviceID(scenario.deviceId))
        let owner = try #require(RendezvousOwnership(instances: ["gw-1", "gw-2"]).owner(of: scenario.deviceId))
        let other = owner == "gw-1" ? "gw-2" : "gw-1"
        let metrics = ClusterMetrics(factory: NOOPMetricsHandler.instance)
        // No heartbeats are fed here: this instance does not judge its own liveness.
        let view = ClusterView(me: other, expiry: 5, warmup: 0, metrics: metrics, checksSelf: false)
        let gate = OwnershipGate(
            view: view, scheme: TopicScheme(), contextDevices: 10, metrics: metrics, snapshots: sharing ? SnapshotCache(limit: 1 << 24, horizon: 7) : nil)
        view.announce(owner, .online, date: start - 10, at: start - 10)
        view.setSelf(.online, date: start - 10, at: start - 10)
        view.settle(at: start - 10)

        var a = FrameProcessor(configuration: .init(accessPolicy: policy))
        var b = FrameProcessor(configuration: .init(accessPolicy: policy))
        var shadows = ShadowDevices()
        var messages: [OutboundMessage] = []
        var replayed = 0
        var nextTick = start + 0.5
        var aAlive = true
        for (index, frame) in frames.enumerated() {
            while nextTick <= frame.receivedAt {
                if aAlive {
                    messages += a.flush(now: nextTick)
                    for changed in a.takeChangedDevices() {
                        let snapshot = try #require(a.snapshot(of: changed))
                        gate.keepSnapshot(Array(try JSONEncoder().encode(snapshot)), lastSeen: snapshot.lastSeen, device: changed.rawValue)
                    }
                } else {
                    messages += b.flush(now: nextTick)
                }
                nextTick += 0.5
            }
            if index == killAt {
                aAlive = false
                view.announce(owner, .idle, date: frame.receivedAt, at: frame.receivedAt)
            }
            let key = try #require(TopicScheme.routingKey(of: frame.topic, inboundRoot: "wearables"))
            let verdict = gate.admit(frame, key: key, inbound: true)
            if aAlive {
                #expect(verdict.role == .none)
                messages += a.process(frame).messages
                continue
            }
            if let (gained, kept) = verdict.restore {
                #expect(gained == device)
                replayed = kept.snapshot?.trail.count ?? 0
                messages += HandoverChange.gained(gained, kept, shadow: false).apply(ContextReplayHandover(), to: &b, shadows: &shadows, cluster: nil)
            }
            #expect(verdict.owned)
            messages += b.process(frame).messages
        }
        for _ in 0..<1200 {
            messages += aAlive ? a.flush(now: nextTick) : b.flush(now: nextTick)
            nextTick += 0.5
        }
        return (messages.map { $0.topic + " " + String(decoding: $0.payload, as: UTF8.self) }, replayed)
    }

    /// A frame index `seconds` into the submerged part that is not right after a snapshot.
    static func killIndex(_ scenario: DiveScenario, seconds: Double) throws -> Int {
        let frames = scenario.frames(startDate: start)
        return try #require(frames.firstIndex { $0.time > scenario.submergeTime + seconds && ($0.time * 2).truncatingRemainder(dividingBy: 1) > 0.6 })
    }

    @Test("the owner dies mid-dive: the next owner continues from its snapshot and the frames after it", arguments: [DiveScenario.deepDive(), .fastAscent()])
    func ownerDiesMidDive(scenario: DiveScenario) throws {
        let uninterrupted = try Self.run(scenario, killAt: nil).messages
        let killAt = try Self.killIndex(scenario, seconds: 40)
        let (handedOver, replayed) = try Self.run(scenario, killAt: killAt)
        #expect(replayed > 0, "frames after the last snapshot were replayed (the test covers the trail)")
        #expect(handedOver.filter { $0.contains("/submersion/dive ") }.count == 1)
        #expect(handedOver == uninterrupted)
    }

    @Test("the control: without shared snapshots the dive restarts at the new owner")
    func withoutSnapshots() throws {
        let scenario = DiveScenario.deepDive()
        let uninterrupted = try Self.run(scenario, killAt: nil).messages
        let handedOver = try Self.run(scenario, killAt: try Self.killIndex(scenario, seconds: 40), sharing: false).messages
        #expect(handedOver.filter { $0.contains("/submersion/dive ") } != uninterrupted.filter { $0.contains("/submersion/dive ") })
    }
}
