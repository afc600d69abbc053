import CoreMetrics
import Prometheus
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// Partitioned mode's membership table and ownership gate, without a broker: who is live, which
/// frames pass, and the hand-over items in the order a worker must see them.
@Suite struct OwnershipGateTests {
    static let scheme = TopicScheme()

    static func frame(_ device: String, _ stream: String, at time: Double = 100, payload: String = "{}") -> (InboundFrame, Substring) {
        let topic = "wearables/\(device)/\(stream)"
        return (InboundFrame(topic: topic, payload: Array(payload.utf8), receivedAt: time), TopicScheme.routingKey(of: topic, inboundRoot: "wearables")!)
    }

    /// - Parameter checksSelf: whether the view judges this instance's own liveness by the echoes
    ///   of its announcements (``SelfLivenessTests``); off where a test feeds no heartbeats.
    static func gate(
        me: String, warmup: Double = 0, checksSelf: Bool = false, factory: any MetricsFactory = NOOPMetricsHandler.instance
    ) -> (ClusterView, OwnershipGate) {
        let metrics = ClusterMetrics(factory: factory)
        let view = ClusterView(me: me, expiry: 5, warmup: warmup, metrics: metrics, checksSelf: checksSelf)
        return (view, OwnershipGate(view: view, scheme: scheme, contextDevices: 100, metrics: metrics))
    }

    /// Devices that rendezvous hashing gives to each of `instances`.
    static func devices(ownedBy instance: String, among instances: [String], count: Int = 3) -> [String] {
        let ownership = RendezvousOwnership(instances: instances)
        return (0..<1000).map { "watch-\($0)" }.filter { ownership.owns(instance, $0) }.prefix(count).map { $0 }
    }

    /// Instance a (warm-up 3 s) owns a device alone from 0, with a frame of it at 1; c joins at
    /// 10, to which the device moves (a's switch at 13).
    static func ownedMovingToC() -> (view: ClusterView, gate: OwnershipGate, device: String, key: Substring) {
        let (view, gate) = Self.gate(me: "a", warmup: 3)
        view.setSelf(.online, at: 0)
        let device = Self.devices(ownedBy: "c", among: ["a", "c"])[0]
        let (frame, key) = Self.frame(device, "motion", at: 1)
        #expect(gate.admit(frame, key: key, inbound: true).owned)
        view.announce("c", .online, at: 10)
        return (view, gate, device, key)
    }

    @Test("a join hands over by claim: the old owner keeps publishing a device it shares with the warming-up newcomer until the newcomer's claim is notified; a device silent during the warm-up is released at the switch")
    func joinHandsOverByClaim() {
        let (viewA, gateA) = Self.gate(me: "a", warmup: 3)
        viewA.setSelf(.online, at: 0)
        let moving = Self.devices(ownedBy: "c", among: ["a", "c"], count: 2)
        let (busy, silent) = (moving[0], moving[1])
        for device in moving {
            let (frame, key) = Self.frame(device, "motion", at: 1)
            #expect(gateA.admit(frame, key: key, inbound: true).owned)
        }
        viewA.announce("c", .online, at: 10)  // the switch is at 13 on a's clock
        let (during, busyKey) = Self.frame(busy, "motion", at: 11)
        #expect(gateA.admit(during, key: busyKey, inbound: true).owned, "during the warm-up a still owns it")
        let changes = gateA.planChanged(viewA.plan(at: 13))
        #expect(changes.released.map(\.rawValue) == [silent], "the silent device goes at once, with its final snapshot")
        #expect(gateA.handingOver == [busy])
        let (after, _) = Self.frame(busy, "motion", at: 13.5)
        let verdict = gateA.admit(after, key: busyKey, inbound: true)
        #expect(verdict.owned && verdict.released.isEmpty, "still a's until c's claim is notified: no frame falls between the owners")
        #expect(gateA.handedOver(DeviceID(busy)!, plan: viewA.plan(at: 13.5)))
        #expect(!gateA.handedOver(DeviceID(busy)!, plan: viewA.plan(at: 13.5)), "once")
        #expect(gateA.handingOver.isEmpty)
        #expect(gateA.admit(after, key: busyKey, inbound: true).role == .none)
        // A device the plan still gives a is fenced by such a claim, not handed over.
        let staying = Self.devices(ownedBy: "a", among: ["a", "c"])[0]
        let (mine, mineKey) = Self.frame(staying, "motion", at: 14)
        #expect(gateA.admit(mine, key: mineKey, inbound: true).owned)
        #expect(!gateA.handedOver(DeviceID(staying)!, plan: viewA.plan(at: 14)))
    }

    @Test("a claim notified while this instance's own warm-up still runs (the next owner read the change a few milliseconds earlier) hands the device over too, not a fencing")
    func claimBeforeOwnSwitch() {
        let (viewA, gateA) = Self.gate(me: "a", warmup: 3)
        viewA.setSelf(.online, at: 0)
        let device = Self.devices(ownedBy: "c", among: ["a", "c"])[0]
        let staying = Self.devices(ownedBy: "a", among: ["a", "c"])[0]
        for name in [device, staying] {
            let (frame, key) = Self.frame(name, "motion", at: 1)
            #expect(gateA.admit(frame, key: key, inbound: true).owned)
        }
        viewA.announce("c", .online, at: 10)  // a switches at 13; c, reading it earlier, claims at 12.99
        let plan = viewA.plan(at: 12.99)
        #expect(gateA.handedOver(DeviceID(device)!, plan: plan), "moving to c: let go at c's claim")
        #expect(!gateA.handedOver(DeviceID(staying)!, plan: plan), "staying with a: the claim fences it")
        let (after, key) = Self.frame(device, "motion", at: 12.995)
        let verdict = gateA.admit(after, key: key, inbound: true)
        #expect(verdict.role == .none && verdict.restore == nil, "not gained again before a's own switch (no claim back)")
        let changes = gateA.planChanged(viewA.plan(at: 13))
        #expect(changes.released.isEmpty, "let go already: not released twice")
        #expect(gateA.admit(after, key: key, inbound: true).role == .none)
    }

    @Test("a device let go at a claim during this instance's warm-up is gained again when the move is called off (its next owner left)")
    func claimBeforeOwnSwitchCalledOff() {
        let (viewA, gateA, device, key) = Self.ownedMovingToC()
        #expect(gateA.handedOver(DeviceID(device)!, plan: viewA.plan(at: 12.99)))
        viewA.announce("c", .idle, at: 12.995)
        let (back, _) = Self.frame(device, "motion", at: 12.996)
        let verdict = gateA.admit(back, key: key, inbound: true)
        #expect(verdict.owned && verdict.restore != nil, "gained again, so claimed again")
    }

    @Test("a device handed over is given back when the plan returns it before the claim (the newcomer died): still owned, no release")
    func handOverUndone() {
        let (viewA, gateA, device, key) = Self.ownedMovingToC()
        let (during, _) = Self.frame(device, "motion", at: 11)
        #expect(gateA.admit(during, key: key, inbound: true).owned)
        _ = gateA.planChanged(viewA.plan(at: 13))
        #expect(gateA.handingOver == [device])
        viewA.announce("c", .idle, at: 14)  // c left before claiming
        let (back, _) = Self.frame(device, "motion", at: 14.5)
        let verdict = gateA.admit(back, key: key, inbound: true)
        #expect(verdict.owned && verdict.released.isEmpty && verdict.restore == nil, "kept, not re-gained")
        #expect(gateA.handingOver.isEmpty)
        #expect(!gateA.handedOver(DeviceID(device)!, plan: viewA.plan(at: 14.5)), "owned again: a later claim fences it instead")
    }

    @Test("a draining instance waits until its devices handing over were claimed, bounded by its timeout")
    func drainWaitsForClaims() async {
        let (viewA, gateA) = Self.gate(me: "a", warmup: 1)
        viewA.announce("b", .online, at: 0)
        viewA.settle(at: 0)
        viewA.setSelf(.online, at: 0)  // a joins: its devices are its own after its warm-up, at 1
        let devices = Self.devices(ownedBy: "a", among: ["a", "b"], count: 2)
        for device in devices {
            let (frame, key) = Self.frame(device, "motion", at: 1.5)
            #expect(gateA.admit(frame, key: key, inbound: true).owned)
        }
        viewA.setSelf(.draining, at: 2)  // b takes them over after its warm-up (3 on a's clock)
        for device in devices {
            let (frame, key) = Self.frame(device, "motion", at: 2.5)
            #expect(gateA.admit(frame, key: key, inbound: true).owned)
        }
        _ = gateA.planChanged(viewA.plan(at: 3))
        #expect(gateA.handingOver == Set(devices))
        #expect(await gateA.waitUntilHandedOver(timeout: 0.05) == 2, "nothing claimed: the wait ends at its bound")
        async let left = gateA.waitUntilHandedOver(timeout: 30)
        for device in devices { #expect(gateA.handedOver(DeviceID(device)!, plan: viewA.plan(at: 3))) }
        #expect(await left == 0, "the last claim ends the wait")
        viewA.setSelf(.idle, at: 4)
        #expect(gateA.planChanged(viewA.plan(at: 4)).released.isEmpty, "nothing left to release")
    }

    @Test("the table counts others while their announcements are fresh and online, and itself only once live")
    func table() {
        var table = MembershipTable(me: "a", expiry: 5)
        table.announce("b", .online, at: 10)
        table.announce("c", .idle, at: 10)
        table.announce("d", .draining, at: 10)
        table.announce("a", .online, at: 10)  // a previous run's retained message: ignored
        #expect(table.live(at: 11) == ["b", "d"] && table.target(at: 11) == ["b"])
        table.setSelf(.online)
        #expect(table.live(at: 11) == ["a", "b", "d"] && table.target(at: 11) == ["a", "b"])
        #expect(table.live(at: 15.1) == ["a"], "b's and d's announcements are older than the expiry")
        table.announce("c", .online, at: 16)
        #expect(table.live(at: 16) == ["a", "c"])
        table.prune(at: 200)
        #expect(table.live(at: 200) == ["a"])
    }

    @Test("nothing passes before the instance is live; context frames are kept meanwhile and restored at the first owned frame")
    func gainRestoresContext() {
        let (view, gate) = Self.gate(me: "a")
        let device = Self.devices(ownedBy: "a", among: ["a", "b"])[0]
        view.announce("b", .online, at: 1)
        let (hello, helloKey) = Self.frame(device, "hello", at: 1, payload: #"{"model":"x"}"#)
        let (workout, workoutKey) = Self.frame(device, "workout", at: 2)
        #expect(!gate.admit(hello, key: helloKey, inbound: true).owned)
        #expect(!gate.admit(workout, key: workoutKey, inbound: true).owned)

        view.setSelf(.online, at: 3)
        let (batch, batchKey) = Self.frame(device, "batched/accelerometer", at: 3)
        let verdict = gate.admit(batch, key: batchKey, inbound: true)
        #expect(verdict.owned)
        #expect(verdict.restore?.device.rawValue == device)
        #expect(verdict.restore?.kept.context.map(\.topic) == ["wearables/\(device)/hello", "wearables/\(device)/workout"])
        let next = gate.admit(batch, key: batchKey, inbound: true)
        #expect(next.owned && next.restore == nil, "restored once")
    }

    @Test("a joining instance's devices are released at the next message, before anything else")
    func joinReleases() {
        let (view, gate) = Self.gate(me: "a")
        view.setSelf(.online, at: 0)
        let moving = Self.devices(ownedBy: "c", among: ["a", "c"], count: 2)
        let staying = Self.devices(ownedBy: "a", among: ["a", "c"], count: 1)[0]
        for device in moving + [staying] {
            let (frame, key) = Self.frame(device, "motion")
            #expect(gate.admit(frame, key: key, inbound: true).owned, "alone, a owns everything")
        }
        view.announce("c", .online, at: 1)
        let (frame, key) = Self.frame(staying, "motion")
        let verdict = gate.admit(frame, key: key, inbound: true)
        #expect(verdict.owned && verdict.restore == nil)
        #expect(Set(verdict.released.map(\.rawValue)) == Set(moving))
        #expect(gate.admit(frame, key: key, inbound: true).released.isEmpty, "released once")
        let (other, otherKey) = Self.frame(moving[0], "motion")
        #expect(!gate.admit(other, key: otherKey, inbound: true).owned)
    }

    @Test("a plan change with no message after it (per-device subscriptions: a moved device sends nothing more here) releases at once, once")
    func planChangeReleasesWithoutMessage() {
        let (view, gate) = Self.gate(me: "a")
        view.setSelf(.online, at: 0)
        let moving = Self.devices(ownedBy: "c", among: ["a", "c"], count: 2)
        for device in moving {
            let (frame, key) = Self.frame(device, "motion")
            #expect(gate.admit(frame, key: key, inbound: true).owned)
        }
        view.announce("c", .online, at: 1)
        let changes = gate.planChanged(view.plan(at: 2))
        #expect(Set(changes.released.map(\.rawValue)) == Set(moving) && changes.promoted.isEmpty)
        #expect(gate.planChanged(view.plan(at: 2)).released.isEmpty, "released once")
        let (frame, key) = Self.frame(moving[0], "motion", at: 2)
        let verdict = gate.admit(frame, key: key, inbound: true)
        #expect(!verdict.owned && verdict.released.isEmpty, "the next message does not release it again")
    }

    @Test("journal records of an earlier run pass whoever owns the device, and are released at the next message")
    func replay() {
        let (view, gate) = Self.gate(me: "a")
        view.announce("b", .online, at: 0)
        view.setSelf(.online, at: 0)
        let device = Self.devices(ownedBy: "b", among: ["a", "b"])[0]
        let (frame, key) = Self.frame(device, "motion")
        let replayed = gate.admit(frame, key: key, inbound: true, replayed: true)
        #expect(replayed.owned && replayed.restore != nil)
        let live = gate.admit(frame, key: key, inbound: true)
        #expect(!live.owned && live.released.map(\.rawValue) == [device])
    }

    @Test("the context cache keeps the latest frame per stream and drops the oldest device past its limit")
    func contextCache() {
        var cache = ContextCache(limit: 2)
        let (first, _) = Self.frame("w1", "workout", at: 1, payload: "1")
        let (second, _) = Self.frame("w1", "workout", at: 2, payload: "2")
        cache.keep(first, stream: .workout, key: "w1")
        cache.keep(second, stream: .workout, key: "w1")
        #expect(cache.frames(of: "w1").map(\.payload) == [Array("2".utf8)])
        cache.keep(first, stream: .hello, key: "w2")
        cache.keep(first, stream: .hello, key: "w3")
        #expect(cache.count == 2 && cache.frames(of: "w1").isEmpty)
        #expect(ContextCache.stream(of: "wearables/w1/workout", key: "w1", root: "wearables") == .workout)
        #expect(ContextCache.stream(of: "wearables/w1/batched/accelerometer", key: "w1", root: "wearables") == nil)
    }

    @Test("a join warms up: the newcomer shadows its devices while the old owner publishes; the newcomer is promoted at the end of its own warm-up, the old owner publishes until the claim")
    func joinWarmsUp() {
        let (registryA, registryC) = (PrometheusCollectorRegistry(), PrometheusCollectorRegistry())
        let (viewA, gateA) = Self.gate(me: "a", warmup: 3, factory: PrometheusMetricsFactory(registry: registryA))
        let (viewC, gateC) = Self.gate(me: "c", warmup: 3, factory: PrometheusMetricsFactory(registry: registryC))
        // The gauges: devices processed and published, and devices shadowed (processed only).
        func devices(_ registry: PrometheusCollectorRegistry) -> (owned: Double?, shadows: Double?) {
            (registry.value(of: "gateway_cluster_owned_devices"), registry.value(of: "gateway_cluster_shadow_devices"))
        }
        viewA.setSelf(.online, at: 0)
        viewC.announce("a", .online, at: 9.5)  // a's latest heartbeat
        viewC.settle(at: 9.5)
        let device = Self.devices(ownedBy: "c", among: ["a", "c"])[0]
        // c announces itself online; each counts the warm-up from when it read the announcement
        // on its own clock (the two clocks need not agree).
        viewA.announce("c", .online, at: 10.002)
        viewC.setSelf(.online, at: 10.001)
        let (early, key) = Self.frame(device, "motion", at: 11)
        #expect(gateA.admit(early, key: key, inbound: true).role == .owner)
        let shadow = gateC.admit(early, key: key, inbound: true)
        #expect(shadow.role == .shadow && shadow.restore != nil)
        #expect(devices(registryA) == (1, 0))
        #expect(devices(registryC) == (0, 1), "a shadow is not owned")
        let (late, _) = Self.frame(device, "motion", at: 13.01)
        let promoted = gateC.admit(late, key: key, inbound: true)
        #expect(promoted.role == .owner && promoted.promoted.map(\.rawValue) == [device] && promoted.restore == nil)
        #expect(devices(registryC) == (1, 0), "promoted")
        let kept = gateA.admit(late, key: key, inbound: true)
        #expect(kept.role == .owner && kept.released.isEmpty, "a publishes until c's claim is notified")
        #expect(devices(registryA) == (1, 0), "handing over: still published here")
        #expect(gateA.handedOver(DeviceID(device)!, plan: viewA.plan(at: 13.01)))
        #expect(devices(registryA) == (0, 0), "handed over")
        let (later, _) = Self.frame(device, "motion", at: 13.02)
        #expect(gateA.admit(later, key: key, inbound: true).role == .none)
    }

    @Test("shared mode: every device frame is this instance's; a device is gained at its first frame here (its state comes from the store's claim); commands and queries only where the device's state is")
    func sharedMode() {
        let metrics = ClusterMetrics(factory: NOOPMetricsHandler.instance)
        let view = ClusterView(me: "a", expiry: 5, warmup: 3, metrics: metrics)
        let gate = OwnershipGate(view: view, scheme: Self.scheme, contextDevices: 10, metrics: metrics, ownsEverything: true)
        let (batch, key) = Self.frame("w1", "batched/accelerometer", at: 2)
        let first = gate.admit(batch, key: key, inbound: true)
        #expect(first.role == .owner && first.restore?.device.rawValue == "w1" && first.restore?.kept.context.isEmpty == true)
        #expect(gate.admit(batch, key: key, inbound: true).restore == nil)
        // Apps' commands and queries reach every instance (the broker routes them by the app's
        // client id): only the one holding the device's state takes them.
        #expect(gate.owns(DeviceID("w1")!))
        #expect(!gate.owns(DeviceID("anyone")!))
        let reset = InboundFrame(topic: "gateway/w1/headphone/reset-pose", payload: [], receivedAt: 3)
        #expect(gate.admit(reset, key: "w1", inbound: false).role == .owner)
        let elsewhere = InboundFrame(topic: "gateway/w2/headphone/reset-pose", payload: [], receivedAt: 3)
        #expect(gate.admit(elsewhere, key: "w2", inbound: false).role == .none)
    }

    @Test("plans: a departure applies at once, a join or a drain after the warm-up, a first instance at once")
    func plans() {
        var plan = OwnershipPlan(warmup: 3)
        plan.update(live: ["a"], target: ["a"], at: 0)
        #expect(plan.current.instances == ["a"] && plan.next == nil)
        plan.update(live: ["a", "b"], target: ["a", "b"], at: 5)
        #expect(plan.current.instances == ["a"] && plan.next?.at == 8, "the warm-up counts from when the change was learnt")
        #expect(!plan.advance(to: 7.9) && plan.advance(to: 8))
        #expect(plan.current.instances == ["a", "b"])
        plan.update(live: ["a", "b"], target: ["b"], at: 20)  // a drains
        #expect(plan.current.instances == ["a", "b"] && plan.next?.ownership.instances == ["b"] && plan.next?.at == 23)
        plan.update(live: ["b"], target: ["b"], at: 21)  // a is gone before the end of its drain
        #expect(plan.current.instances == ["b"] && plan.next == nil)
        let version = plan.version
        plan.update(live: ["b"], target: ["b"], at: 22)
        #expect(plan.version == version, "no change, no new version")
        #expect(plan.role(of: "b", for: "x") == .owner && plan.role(of: "a", for: "x") == .none)
    }
}

extension OwnershipGate {
    /// The gate's decision with the frame's time as its arrival on the instance's clock.
    func admit(_ frame: InboundFrame, key: Substring, inbound: Bool, replayed: Bool = false) -> Verdict {
        admit(frame, key: key, inbound: inbound, replayed: replayed, at: frame.receivedAt)
    }
}
