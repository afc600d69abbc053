import PostgresStore
import RecorderStore
import TelemetryCore
import Testing

/// The store's claim notifications as the claim listener reads them (schema migration 2's
/// `json_build_object('device', …, 'epoch', …, 'instance', …)`).
@Suite("Claim notification payloads")
struct DeviceClaimNoticeTests {
    @Test("a claim parses whatever the member order and the instance's characters")
    func parses() {
        #expect(
            DeviceClaimNotice(payload: #"{"device" : "watch-1", "epoch" : 12, "instance" : "gw-b"}"#)
                == DeviceClaimNotice(device: DeviceID("watch-1")!, owner: DeviceOwnership(instance: "gw-b", epoch: 12)))
        #expect(
            DeviceClaimNotice(payload: #"{"instance":"gw \"x\", y","epoch":9007199254740993,"device":"a.b_c-9"}"#)
                == DeviceClaimNotice(device: DeviceID("a.b_c-9")!, owner: DeviceOwnership(instance: #"gw "x", y"#, epoch: 9_007_199_254_740_993)),
            "a full 64-bit epoch, an instance with quotes, commas and spaces")
    }

    @Test("anything else is not a claim: no crash, nil", arguments: [
        "", "garbage", "null", "[]", "{}", #"{"device":"w","epoch":1}"#, #"{"device":"w","epoch":"1","instance":"gw-b"}"#,
        #"{"device":"has space","epoch":1,"instance":"gw-b"}"#, #"{"device":"w","epoch":0,"instance":"gw-b"}"#,
        #"{"device":"w","epoch":1.5,"instance":"gw-b"}"#, #"{"device":"w","epoch":1,"instance":"gw-b""#,
    ])
    func rejects(payload: String) {
        #expect(DeviceClaimNotice(payload: payload) == nil)
    }
}
