extension TopicScheme {
    /// Where a device's rejected frames are republished, e.g. `gateway/watch-1/dead-letter`.
    /// - Parameter id: the device.
    /// - Returns: the topic.
    public func deadLetterTopic(_ id: DeviceID) -> String { deviceTopic(id, .deadLetter) }

    /// Where rejected frames without a valid device id are republished, e.g. `gateway/dead-letter`.
    public var deadLetterTopic: String { topic(.deadLetter) }
}
