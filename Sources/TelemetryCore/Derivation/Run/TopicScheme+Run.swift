extension TopicScheme {
    /// A device's run-segment topic, e.g. `gateway/watch-1/pedometer/segment`.
    /// - Parameter id: the device.
    /// - Returns: the topic.
    public func pedometerSegmentTopic(_ id: DeviceID) -> String { deviceTopic(id, .pedometerSegment) }

    /// A device's workout-summary topic, e.g. `gateway/watch-1/pedometer/workout`.
    /// - Parameter id: the device.
    /// - Returns: the topic.
    public func pedometerWorkoutTopic(_ id: DeviceID) -> String { deviceTopic(id, .pedometerWorkout) }
}
