extension TopicScheme {
    /// The filter matching every device's recorder query, e.g. `gateway/+/recorder/query`.
    ///
    /// Apps send requests below the outbound root, next to the results they ask about. The
    /// gateway never publishes on it (answers go to the request's response topic), so
    /// subscribing to it does not feed the gateway its own output.
    public var recorderQueryFilter: String { deviceFilter(.recorderQuery) }

    /// The recorder query topic of a device, e.g. `gateway/watch-1/recorder/query`.
    public func recorderQueryTopic(_ id: DeviceID) -> String { deviceTopic(id, .recorderQuery) }

    /// The device a recorder query is for.
    /// - Parameter topic: the topic of a received message.
    /// - Returns: the device, or nil when the topic is not `<outboundRoot>/{id}/recorder/query` with a valid id.
    public func parseRecorderQuery(_ topic: String) -> DeviceID? {
        guard let idLevel = Self.routingKey(of: topic, inboundRoot: outboundRoot), let id = DeviceID(idLevel) else { return nil }
        return topic == recorderQueryTopic(id) ? id : nil
    }
}
