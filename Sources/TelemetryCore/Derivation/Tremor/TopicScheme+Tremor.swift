extension TopicScheme {
    /// The tremor results topic of a device, e.g. `gateway/watch-1/tremor`.
    /// - Parameter id: the device.
    /// - Returns: the topic.
    public func tremorTopic(_ id: DeviceID) -> String { deviceTopic(id, .tremor) }
}
