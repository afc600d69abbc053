import Foundation
import Testing

@testable import TelemetryCore

@Suite("Recorder replies: only below replies/{requester}")
struct RecorderReplyCheckTests {
    typealias Code = RecorderReplyCheck.Rejection.Code

    private func code(_ requester: String?, _ responseTopic: String?) -> Code? {
        if case .failure(let rejection) = RecorderReplyCheck.check(requester: requester, responseTopic: responseTopic) {
            #expect(!rejection.detail.isEmpty)
            return rejection.code
        }
        return nil
    }

    @Test("the requester's own reply topics are accepted as they are")
    func ownTopics() throws {
        #expect(try RecorderReplyCheck.check(requester: "app-1", responseTopic: "replies/app-1").get() == "replies/app-1")
        #expect(try RecorderReplyCheck.check(requester: "app-1", responseTopic: "replies/app-1/q/7").get() == "replies/app-1/q/7")
    }

    @Test(
        "anything else is rejected with a code",
        arguments: [
            ("app-1", "gateway/status", Code.foreignResponseTopic),
            ("app-1", "replies/app-2/stolen", .foreignResponseTopic),
            ("app-1", "replies/app-10", .foreignResponseTopic),
            ("app-1", "replies/app-1x/y", .foreignResponseTopic),
            ("app-1", "replies", .foreignResponseTopic),
            ("app-1", "wearables/watch-1/status", .foreignResponseTopic),
            ("app-1", "replies/app-1/#", .invalidResponseTopic),
            ("app-1", "replies/app-1/+/x", .invalidResponseTopic),
            ("app-1", "", .invalidResponseTopic),
            ("", "replies//x", .unprovenRequester),
            ("a/b", "replies/a/b/x", .unprovenRequester),
            ("+", "replies/+/x", .unprovenRequester),
        ])
    func rejected(requester: String, responseTopic: String, expected: Code) {
        #expect(code(requester, responseTopic) == expected)
    }

    @Test("never below a topic root, even when a root is configured as replies")
    func roots() {
        let scheme = TopicScheme(inboundRoot: "replies/devices", outboundRoot: "gateway")
        let result = RecorderReplyCheck.check(requester: "devices", responseTopic: "replies/devices/watch-1/status", scheme: scheme)
        #expect((try? result.get()) == nil)
        if case .failure(let rejection) = result { #expect(rejection.code == .invalidResponseTopic) }
    }

    @Test("a query without requester or response topic is rejected")
    func missing() {
        #expect(code(nil, "replies/app-1/x") == .unprovenRequester)
        #expect(code("app-1", nil) == .noResponseTopic)
    }

    @Test("the error event goes to the device's errors topic and names the code and requester")
    func errorEvent() throws {
        let rejection = RecorderReplyCheck.Rejection(.foreignResponseTopic, detail: "not yours")
        let message = RecorderReplyCheck.errorEvent(rejection, device: DeviceID("watch-1")!, requester: "app-1", date: 1_700_000_000, scheme: TopicScheme())
        #expect(message.topic == "gateway/watch-1/errors")
        #expect(message.qos == .atLeastOnce && !message.retain)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
        #expect(object["deviceId"] as? String == "watch-1")
        #expect(object["code"] as? String == "foreignResponseTopic")
        #expect(object["stream"] as? String == "recorder/query")
        #expect(object["requester"] as? String == "app-1")
        #expect(object["detail"] as? String == "not yours")
        #expect(object["count"] as? Int == 1)
        #expect(object["date"] as? Double == 1_700_000_000)
    }
}
