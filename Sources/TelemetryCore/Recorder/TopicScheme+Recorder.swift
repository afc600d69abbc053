extension TopicScheme {
    /// The leaf of recorder queries below a device's outbound topics.
    public static let recorderQueryLeaf = Leaf.recorderQuery.rawValue

    /// The root under which every answer goes: `replies/{requester}/…`. The broker ACL lets a
    /// client read only `replies/<its own user name>/#`.
    public static let replyRoot = "replies"

    /// The filter matching every device's recorder queries, e.g. `gateway/+/recorder/query/#`.
    ///
    /// A query is sent to `gateway/{id}/recorder/query/{requester}`, where the broker ACL lets
    /// a client write only its own user name as `{requester}`. The filter also matches queries
    /// without that level (`…/recorder/query`), so they are reported rather than silently
    /// ignored. The gateway never publishes below it, so subscribing does not feed it its own output.
    public var recorderQueryFilter: String { deviceFilter(.recorderQuery) + "/#" }

    /// The recorder query topic of a device for one requester, e.g.
    /// `gateway/watch-1/recorder/query/app-1`.
    public func recorderQueryTopic(_ id: DeviceID, requester: String) -> String {
        deviceTopic(id, .recorderQuery) + "/" + requester
    }

    /// The device and requester of a recorder query.
    /// - Parameter topic: the topic of a received message.
    /// - Returns: nil when the topic is not `<outboundRoot>/{id}/recorder/query[/…]` with a valid
    ///   id; otherwise the device, with the requester as it appears after `recorder/query/`
    ///   (nil when the topic stops at `recorder/query`; checked by ``RecorderReplyCheck``).
    public func parseRecorderQuery(_ topic: String) -> RecorderQueryAddress? {
        guard let idLevel = Self.routingKey(of: topic, inboundRoot: outboundRoot), let id = DeviceID(idLevel) else { return nil }
        let queryTopic = deviceTopic(id, .recorderQuery)
        if topic == queryTopic { return RecorderQueryAddress(device: id, requester: nil) }
        guard topic.hasPrefix(queryTopic + "/") else { return nil }
        return RecorderQueryAddress(device: id, requester: String(topic.unicodeScalars.dropFirst(queryTopic.unicodeScalars.count + 1)))
    }
}
