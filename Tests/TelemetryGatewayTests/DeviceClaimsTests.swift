import RecorderStore
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// A shard's claims as a pure value: which outputs carry an epoch, which are held back, and
/// when a fenced device may be claimed again.
@Suite("Device claims")
struct DeviceClaimsTests {
    static let scheme = TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway")
    static let (claimed, fenced, unclaimed) = (DeviceID("claimed-1")!, DeviceID("fenced-1")!, DeviceID("unclaimed-1")!)

    static func message(_ device: DeviceID) -> OutboundMessage {
        OutboundMessage(.connection, of: device, in: scheme, payload: Array("{}".utf8))
    }

    @Test("outputs of a claimed device carry instance and epoch; a fenced device's are dropped; others and device-less ones pass as they are")
    func stamps() {
        var claims = DeviceClaims(instance: "gw-a")
        claims.claimed(Self.claimed, epoch: 7)
        claims.claimed(Self.fenced, epoch: 3)
        let first = claims.refused(Self.fenced, owner: DeviceOwnership(instance: "gw-b", epoch: 4), at: nil)
        let again = claims.refused(Self.fenced, owner: DeviceOwnership(instance: "gw-b", epoch: 4), at: nil)
        #expect(first && !again, "reported once")
        let global = OutboundMessage(topic: "gateway/errors", payload: [])
        let out = claims.stamp([Self.message(Self.claimed), Self.message(Self.fenced), Self.message(Self.unclaimed), global])
        #expect(out.map(\.topic) == ["gateway/claimed-1/connection", "gateway/unclaimed-1/connection", "gateway/errors"])
        #expect(out[0].userProperties == [UserProperty(name: "instance", value: "gw-a"), UserProperty(name: "epoch", value: "7")])
        #expect(out[1].userProperties.isEmpty && out[2].userProperties.isEmpty)
        #expect(claims.isFenced(Self.fenced) && claims.epoch(of: Self.fenced) == nil && !claims.needsClaim(Self.fenced))
        #expect(claims.needsClaim(Self.unclaimed) && !claims.needsClaim(Self.claimed))
    }

    @Test("a failed claim is pending, not claimed again per frame; a release clears every standing")
    func pendingAndRelease() {
        var claims = DeviceClaims(instance: "gw-a")
        claims.claimFailed(Self.claimed)
        #expect(!claims.needsClaim(Self.claimed) && claims.pending == [Self.claimed])
        #expect(claims.stamp([Self.message(Self.claimed)])[0].userProperties.isEmpty, "published unfenced, unstamped")
        claims.claimed(Self.claimed, epoch: 2)
        #expect(claims.pending.isEmpty && claims.epoch(of: Self.claimed) == 2)
        claims.supersede(Self.fenced)
        #expect(claims.isSuperseded(Self.fenced))
        claims.released(Self.claimed)
        claims.released(Self.fenced)
        #expect(claims.epochs.isEmpty && !claims.isSuperseded(Self.fenced) && claims.needsClaim(Self.claimed))
    }

    @Test("a fenced device is due for a new claim only once the delay has passed since its refusal")
    func fencedDue() {
        var claims = DeviceClaims(instance: "gw-a")
        let refusal = SuspendingClock.now
        claims.refused(Self.fenced, owner: DeviceOwnership(instance: "gw-b", epoch: 2), at: refusal)
        #expect(claims.fenced(before: refusal + .seconds(6.9), by: .seconds(7)).isEmpty)
        #expect(claims.fenced(before: refusal + .seconds(7), by: .seconds(7)) == [Self.fenced])
    }

    @Test("a fencing learnt before the first tick (a notified claim at the start) counts from the next tick, not as due at once")
    func fencedBeforeFirstTick() {
        var claims = DeviceClaims(instance: "gw-a")
        claims.claimed(Self.fenced, epoch: 1)
        claims.refused(Self.fenced, owner: DeviceOwnership(instance: "gw-b", epoch: 2), at: nil)
        let tick = SuspendingClock.now
        #expect(claims.fenced(before: tick, by: .seconds(7)).isEmpty)
        #expect(claims.fenced(before: tick + .seconds(6.9), by: .seconds(7)).isEmpty)
        #expect(claims.fenced(before: tick + .seconds(7), by: .seconds(7)) == [Self.fenced])
    }

    @Test("a notified claim fences only when another instance claimed a device held here under a greater epoch")
    func noticeVerdicts() {
        var claims = DeviceClaims(instance: "gw-a")
        claims.claimed(Self.claimed, epoch: 5)
        #expect(claims.verdict(on: Self.claimed, claimedBy: DeviceOwnership(instance: "gw-a", epoch: 5)) == .ownClaim, "its own claim's notification")
        #expect(claims.verdict(on: Self.claimed, claimedBy: DeviceOwnership(instance: "gw-a", epoch: 9)) == .ownClaim)
        #expect(claims.verdict(on: Self.claimed, claimedBy: DeviceOwnership(instance: "gw-b", epoch: 4)) == .notNewer, "a claim committed before this one's")
        #expect(claims.verdict(on: Self.claimed, claimedBy: DeviceOwnership(instance: "gw-b", epoch: 5)) == .notNewer)
        #expect(claims.verdict(on: Self.claimed, claimedBy: DeviceOwnership(instance: "gw-b", epoch: 6)) == .fence)
        #expect(claims.verdict(on: Self.unclaimed, claimedBy: DeviceOwnership(instance: "gw-b", epoch: 6)) == .notHeld, "a device not claimed here")
        claims.claimFailed(Self.fenced)
        #expect(claims.verdict(on: Self.fenced, claimedBy: DeviceOwnership(instance: "gw-b", epoch: 1)) == .notHeld, "pending: no epoch held")
        claims.refused(Self.claimed, owner: DeviceOwnership(instance: "gw-b", epoch: 6), at: nil)
        #expect(claims.verdict(on: Self.claimed, claimedBy: DeviceOwnership(instance: "gw-c", epoch: 7)) == .notHeld, "fenced already")
    }

    @Test("the claimed devices are mirrored for the claim listener's owner check: claimed in, failed, refused and released out")
    func mirrorsClaimedDevices() {
        let index = ClaimedDevices()
        var claims = DeviceClaims(instance: "gw-a", index: index)
        claims.claimed(Self.claimed, epoch: 1)
        claims.claimed(Self.fenced, epoch: 2)
        claims.claimed(Self.unclaimed, epoch: 3)
        #expect(Set(index.all) == [Self.claimed, Self.fenced, Self.unclaimed])
        claims.refused(Self.fenced, owner: DeviceOwnership(instance: "gw-b", epoch: 3), at: nil)
        claims.released(Self.unclaimed)
        #expect(index.all == [Self.claimed])
        claims.claimFailed(Self.claimed)
        #expect(index.all.isEmpty)
    }
}
