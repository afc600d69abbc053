/// Decides where the answer to a recorder query may go: only below `replies/{requester}`,
/// where `{requester}` is the last level of the query topic. The broker ACL lets a client
/// write query topics only with its own user name there, so the requester is proven and an
/// app cannot make the gateway publish on `gateway/status` or into another app's replies.
public enum RecorderReplyCheck {
    /// Why a query is not answered at all. Each is counted and reported on
    /// `gateway/{id}/errors`.
    public struct Rejection: Error, Sendable, Equatable {
        /// The kind of rejection: a small fixed set, fit for a metric dimension.
        public enum Code: String, Sendable, CaseIterable {
            /// The topic has no requester level (`…/recorder/query`), or it is not one level.
            case unprovenRequester
            /// The request carries no MQTT 5 response topic.
            case noResponseTopic
            /// The response topic is empty, has a wildcard or NUL, is too long, or is below a
            /// configured topic root.
            case invalidResponseTopic
            /// The response topic is not below `replies/{requester}`.
            case foreignResponseTopic
        }

        /// The kind of rejection.
        public var code: Code
        /// What is wrong, for people.
        public var detail: String

        /// Creates a rejection.
        public init(_ code: Code, detail: String) {
            self.code = code
            self.detail = detail
        }
    }

    /// The topic all answers to `requester` must be at or below: `replies/{requester}`.
    public static func replyPrefix(for requester: String) -> String { TopicScheme.replyRoot + "/" + requester }

    /// Checks a query's requester and response topic.
    /// - Parameter scheme: the topic roots; an answer never goes below them (with a root
    ///   configured as `replies` it would be read back as device data or mix with the
    ///   gateway's events).
    /// - Returns: the response topic to answer on, or why there is no answer.
    public static func check(requester: String?, responseTopic: String?, scheme: TopicScheme = TopicScheme()) -> Result<String, Rejection> {
        guard let requester else {
            return .failure(
                Rejection(.unprovenRequester, detail: "the query topic has no requester level; send queries to <root>/{id}/recorder/query/{your user name}"))
        }
        if requester.isEmpty || requester.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\0" }) {
            return .failure(Rejection(.unprovenRequester, detail: "requester '\(TopicScheme.bounded(requester))' is not one topic level"))
        }
        guard let responseTopic else {
            return .failure(Rejection(.noResponseTopic, detail: "the query has no MQTT 5 response topic"))
        }
        if responseTopic.isEmpty || responseTopic.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) || responseTopic.utf8.count > 65_535 {
            return .failure(Rejection(.invalidResponseTopic, detail: "response topic '\(TopicScheme.bounded(responseTopic))' is empty, too long or has a wildcard or NUL"))
        }
        let prefix = replyPrefix(for: requester)
        guard responseTopic == prefix || responseTopic.hasPrefix(prefix + "/") else {
            return .failure(
                Rejection(
                    .foreignResponseTopic,
                    detail: "response topic '\(TopicScheme.bounded(responseTopic))' is not below '\(prefix)/', the requester's own reply topics"))
        }
        for root in [scheme.inboundRoot, scheme.outboundRoot] where responseTopic == root || responseTopic.hasPrefix(root + "/") {
            return .failure(Rejection(.invalidResponseTopic, detail: "response topic '\(TopicScheme.bounded(responseTopic))' is below the topic root '\(root)'"))
        }
        return .success(responseTopic)
    }

    /// The `gateway/{id}/errors` event for a rejected query (stream `recorder/query`).
    public static func errorEvent(_ rejection: Rejection, device: DeviceID, requester: String?, date: Double, scheme: TopicScheme) -> OutboundMessage {
        var writer = JSONWriter(capacity: 256)
        writer.object {
            $0.field("deviceId", device.rawValue)
            $0.field("code", rejection.code.rawValue)
            $0.field("stream", TopicScheme.recorderQueryLeaf)
            $0.field("detail", rejection.detail)
            if let requester { $0.field("requester", TopicScheme.bounded(requester)) }
            $0.field("count", 1)
            $0.field("date", date)
            $0.field("firstDate", date)
        }
        return OutboundMessage(.errors, of: device, in: scheme, payload: writer.bytes)
    }
}
