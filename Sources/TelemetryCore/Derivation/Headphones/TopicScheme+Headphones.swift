extension TopicScheme {
    /// The filter matching every device's reset-pose command, e.g. `gateway/+/headphone/reset-pose`.
    ///
    /// Apps publish the command below the outbound root, next to the pose it re-anchors. The
    /// gateway never publishes on it, so subscribing to it does not feed the gateway its own output.
    public var headphoneResetPoseFilter: String { deviceFilter(.headphoneResetPose) }

    /// The reset-pose topic of a device, e.g. `gateway/buds-1/headphone/reset-pose`.
    /// - Parameter id: the device.
    /// - Returns: the topic.
    public func headphoneResetPoseTopic(_ id: DeviceID) -> String { deviceTopic(id, .headphoneResetPose) }

    /// The device a reset-pose command is for.
    /// - Parameter topic: the topic of a received message.
    /// - Returns: the device, or nil when the topic is not `<outboundRoot>/{id}/headphone/reset-pose`
    ///   with a valid id.
    public func parseHeadphoneResetPose(_ topic: String) -> DeviceID? {
        guard let idLevel = Self.routingKey(of: topic, inboundRoot: outboundRoot), let id = DeviceID(idLevel) else { return nil }
        return topic == headphoneResetPoseTopic(id) ? id : nil
    }
}
