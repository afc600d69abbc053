extension TopicScheme {
    /// Every level path the gateway publishes (or, for commands, listens on) below a device's
    /// outbound topic `<outboundRoot>/{id}/`: the one place they are spelled. Event ids hash the
    /// raw value, so renaming a case's value changes published ids.
    public enum Leaf: String, Sendable, CaseIterable {
        /// Bridge presence (retained).
        case connection
        /// Rejected frames of the device.
        case errors
        /// Capabilities, entitlements and authorization (retained).
        case availability
        /// Headphone connection state (retained).
        case headphoneConnection = "headphone/connection"
        /// Bud hand-offs.
        case headphoneSensorLocation = "headphone/sensor-location"
        /// Head pose relative to the reference pose.
        case headphonePose = "headphone/pose"
        /// Posture events.
        case headphonePosture = "headphone/posture"
        /// Nod and shake gestures.
        case headphoneGesture = "headphone/gesture"
        /// The reset-pose command apps publish (the gateway subscribes to it).
        case headphoneResetPose = "headphone/reset-pose"
        /// Depth state (retained).
        case submersionDepthState = "submersion/depth-state"
        /// Dive summary.
        case submersionDive = "submersion/dive"
        /// Water temperature while submerged.
        case submersionTemperature = "submersion/temperature"
        /// Ascent-rate warning (project addition).
        case submersionAscentWarning = "submersion/ascent-warning"
        /// Safety-stop hint (project addition).
        case submersionSafetyStop = "submersion/safety-stop"
        /// Swing metrics from the batched streams.
        case swing
        /// Tennis strokes from `motion`.
        case tennisStroke = "tennis/stroke"
        /// One active run segment.
        case pedometerSegment = "pedometer/segment"
        /// The summary of a workout that ended.
        case pedometerWorkout = "pedometer/workout"
        /// Tremor results per minute of recorded data.
        case tremor
        /// Recorder queries apps publish (the gateway subscribes to it; answers go to the
        /// request's response topic).
        case recorderQuery = "recorder/query"
        /// Rejected frames republished with their original bytes (`deadLetter.enabled`).
        case deadLetter = "dead-letter"
    }

    /// A per-device outbound topic, e.g. `gateway/watch-1/submersion/depth-state`.
    /// - Parameters:
    ///   - id: the device.
    ///   - leaf: the levels below the device id.
    /// - Returns: the topic.
    public func deviceTopic(_ id: DeviceID, _ leaf: Leaf) -> String {
        outboundRoot + "/" + id.rawValue + "/" + leaf.rawValue
    }

    /// The filter matching one leaf of every device, e.g. `gateway/+/recorder/query`.
    /// - Parameter leaf: the levels below the device id.
    /// - Returns: the filter.
    public func deviceFilter(_ leaf: Leaf) -> String { outboundRoot + "/+/" + leaf.rawValue }
}
