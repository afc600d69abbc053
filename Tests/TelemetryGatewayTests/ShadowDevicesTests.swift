import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

@Suite("Shadowed devices: what a warming-up owner derives stays unpublished")
struct ShadowDevicesTests {
    @Test("hides the messages that name a shadowed device, by the device they name, not by their topic")
    func hidesByDevice() throws {
        let shadowed = try #require(DeviceID("w-1"))
        // An id that is a prefix of the shadowed one, and one whose topic level looks alike.
        let others = try ["w", "w-10", "w-1.x"].map { try #require(DeviceID($0)) }
        let scheme = TopicScheme(outboundRoot: "acme/out")
        var shadows = ShadowDevices()
        shadows.insert(shadowed)
        let hidden = [OutboundMessage(.swing, of: shadowed, in: scheme, payload: [1]), OutboundMessage(.errors, of: shadowed, in: scheme, payload: [2])]
        let shown =
            others.map { OutboundMessage(.swing, of: $0, in: scheme, payload: [3]) } + [
                OutboundMessage(.errors, in: scheme, payload: [4]),
                OutboundMessage(.status, in: scheme, payload: [5]),
            ]
        #expect(shadows.visible(hidden + shown) == shown)

        shadows.remove(shadowed)
        #expect(shadows.visible(hidden + shown) == hidden + shown, "published again once no longer shadowed")
    }
}
