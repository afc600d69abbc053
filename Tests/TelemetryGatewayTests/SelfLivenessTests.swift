import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// A frozen-then-thawed instance (partitioned mode): it counts itself live only while its own
/// announcements come back within `cluster.expiry`, and after a lapse owns nothing until it has
/// joined again with a warm-up, whichever of its connections delivers its backlog first.
@Suite struct SelfLivenessTests {
    @Test("live while echoes come back within the expiry; a gap before a frame or an echo is a lapse that sticks until the next begin")
    func rule() {
        var liveness = SelfLiveness(expiry: 3)
        let early = liveness.check(at: 100)
        #expect(!early && !liveness.live, "not counting before the first online echo")
        liveness.begin(at: 10)
        var lapses = 0
        for beat in 1...10 where liveness.echo(at: 10 + Double(beat) * 0.5) { lapses += 1 }
        let inTime = liveness.check(at: 17.9)
        #expect(lapses == 0 && !inTime && liveness.live, "2.9 s after the last echo at 15")

        // Frozen from 15 to 30: the frames read first after the thaw.
        var framesFirst = liveness
        let frameLapse = framesFirst.check(at: 30.001)
        let freshEcho = framesFirst.echo(at: 30.002)
        let nextFrame = framesFirst.check(at: 30.003)
        #expect(frameLapse && !freshEcho && !nextFrame && !framesFirst.live, "a fresh echo does not end the lapse")

        // The same thaw with the membership connection read first.
        var echoFirst = liveness
        let echoLapse = echoFirst.echo(at: 30.001)
        let frameAfter = echoFirst.check(at: 30.002)
        #expect(echoLapse && !frameAfter && !echoFirst.live, "a frame read after that echo is not owned")

        // Joined again: counting anew.
        echoFirst.begin(at: 31)
        let rejoined = echoFirst.check(at: 33.9)
        #expect(echoFirst.live && !rejoined)

        // The will published (connection lost while frozen): a lapse too, only while counting.
        var will = liveness
        let first = will.lapse()
        let second = will.lapse()
        #expect(first && !second && !will.live)
        var idle = SelfLiveness(expiry: 3)
        let idleLapse = idle.lapse()
        let idleEcho = idle.echo(at: 100)
        #expect(!idleLapse && !idleEcho)
        liveness.stop()
        let stopped = liveness.check(at: 1000)
        #expect(!stopped && !liveness.live)
    }

    /// b among a, b, c (expiry 5 s), heartbeats every 0.5 s up to 15, then b freezes; a sees the
    /// same. The device is b's among the three and a's once b is gone.
    static func frozenCluster(checksSelf: Bool) -> (b: ClusterView, gateB: OwnershipGate, a: ClusterView, gateA: OwnershipGate, device: String) {
        let (b, gateB) = OwnershipGateTests.gate(me: "b", warmup: 3, checksSelf: checksSelf)
        let (a, gateA) = OwnershipGateTests.gate(me: "a", warmup: 3, checksSelf: checksSelf)
        for time in stride(from: 0.0, through: 15, by: 0.5) {
            for name in ["a", "c"] { b.announce(name, .online, at: time) }
            for name in ["b", "c"] { a.announce(name, .online, at: time) }
        }
        b.settle(at: 0)
        a.settle(at: 0)
        b.setSelf(.online, at: 0)
        a.setSelf(.online, at: 0)
        for time in stride(from: 0.5, through: 15, by: 0.5) {
            b.echoed(at: time)
            a.echoed(at: time)
        }
        let survivors = RendezvousOwnership(instances: ["a", "c"])
        let device = OwnershipGateTests.devices(ownedBy: "b", among: ["a", "b", "c"], count: 50).first { survivors.owns("a", $0) }!
        return (b, gateB, a, gateA, device)
    }

    @Test(
        "thawed after the others expired it, an instance publishes none of the backlog, rejoins and owns its devices again only after the warm-up",
        arguments: [true, false])
    func thaw(echoFirst: Bool) {
        let (b, gateB, a, gateA, device) = Self.frozenCluster(checksSelf: true)
        let (before, key) = OwnershipGateTests.frame(device, "batched/accelerometer", at: 14.9)
        #expect(gateB.admit(before, key: key, inbound: true).owned)
        // a expires b at its first tick 5 s after b's last heartbeat, and owns b's device.
        for time in stride(from: 15.5, through: 30, by: 0.5) {
            a.announce("c", .online, at: time)
            a.echoed(at: time)
            a.expire(at: time)
            if time == 22 {
                let (during, _) = OwnershipGateTests.frame(device, "batched/accelerometer", at: time)
                #expect(gateA.admit(during, key: key, inbound: true).owned)
            }
        }

        // b thaws at 30: the broker's backlog (stamped at its reading) and the others' heartbeats.
        if echoFirst { b.echoed(at: 30.001) }
        let (backlog, _) = OwnershipGateTests.frame(device, "batched/accelerometer", at: 30.002)
        let verdict = gateB.admit(backlog, key: key, inbound: true)
        #expect(!verdict.owned && verdict.released.map(\.rawValue) == [device] && b.lapsed)
        for name in ["a", "c"] { b.announce(name, .online, at: 30.003) }
        #expect(!gateB.admit(backlog, key: key, inbound: true).owned)

        // b joins again at 31; a reads it at the same time and warms b up (it expired b at 20).
        b.setSelf(.online, at: 31.001)
        a.announce("b", .online, at: 31.001)
        #expect(!b.lapsed)
        let (warming, _) = OwnershipGateTests.frame(device, "batched/accelerometer", at: 32)
        #expect(gateB.admit(warming, key: key, inbound: true).role == .shadow)
        #expect(gateA.admit(warming, key: key, inbound: true).owned)
        b.echoed(at: 33)
        let (after, _) = OwnershipGateTests.frame(device, "batched/accelerometer", at: 34.01)
        #expect(gateB.admit(after, key: key, inbound: true).owned)
        #expect(gateA.admit(after, key: key, inbound: true).owned, "a publishes until b's claim is notified")
        #expect(gateA.handedOver(DeviceID(device)!, plan: a.plan(at: 34.01)))
        #expect(!gateA.admit(after, key: key, inbound: true).owned)
    }

    @Test("an instance silent for the expiry that announces itself again joins anew, with a warm-up, even if no tick expired it")
    func silentInstanceRejoinsWithWarmup() {
        let (_, _, a, gateA, device) = Self.frozenCluster(checksSelf: true)
        for time in stride(from: 15.5, through: 21, by: 0.5) {
            a.announce("c", .online, at: time)
            a.echoed(at: time)
        }
        // No tick ran since 15: b's next announcement, 6 s after its last, is read first.
        a.announce("b", .online, at: 21)
        let (frame, key) = OwnershipGateTests.frame(device, "batched/accelerometer", at: 21.5)
        #expect(gateA.admit(frame, key: key, inbound: true).owned, "a covers b's device during b's warm-up")
    }

    @Test("the control: without the self check the thawed instance publishes its backlog as owner (the duplicates)")
    func control() {
        let (_, gateB, _, _, device) = Self.frozenCluster(checksSelf: false)
        let (backlog, key) = OwnershipGateTests.frame(device, "batched/accelerometer", at: 30.002)
        #expect(gateB.admit(backlog, key: key, inbound: true).owned)
    }
}
