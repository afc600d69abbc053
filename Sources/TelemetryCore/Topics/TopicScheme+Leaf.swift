extension TopicScheme {
    /// Every level path the gateway publishes (or, for commands, listens on) below a device's
    /// outbound topic `<outboundRoot>/{id}/`: the one place they are spelled, with the QoS, the
    /// retain flag and the event family each is published with (the wire contract's table of
    /// outbound topics). Event ids hash the raw value, so renaming a case's value changes
    /// published ids.
    public enum Leaf: String, Sendable, CaseIterable, Codable {
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
        /// Head pose relative to the reference pose (QoS 0).
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

        /// The QoS the gateway publishes the leaf with: 0 for the head pose (a ~25 Hz stream
        /// whose next sample replaces a lost one), 1 for everything else.
        public var qos: MQTTQoS {
            self == .headphonePose ? .atMostOnce : .atLeastOnce
        }

        /// Whether the broker keeps the leaf's last message for new subscribers: the states
        /// (presence, availability, headphone connection, depth state), not the events.
        public var retain: Bool {
            switch self {
            case .connection, .availability, .headphoneConnection, .submersionDepthState:
                true
            case .errors, .headphoneSensorLocation, .headphonePose, .headphonePosture, .headphoneGesture, .headphoneResetPose,
                .submersionDive, .submersionTemperature, .submersionAscentWarning, .submersionSafetyStop, .swing, .tennisStroke,
                .pedometerSegment, .pedometerWorkout, .tremor, .recorderQuery, .deadLetter:
                false
            }
        }

        /// The family the leaf's messages count under (latency histogram, fleet page).
        public var family: EventFamily {
            switch self {
            case .connection: .connection
            case .availability: .availability
            case .errors: .errors
            case .deadLetter: .deadLetter
            case .submersionDepthState: .depthState
            case .submersionDive, .submersionTemperature, .submersionAscentWarning, .submersionSafetyStop: .submersion
            case .headphoneConnection: .headphoneConnection
            case .headphonePose: .headphonePose
            case .headphoneSensorLocation, .headphonePosture, .headphoneGesture, .headphoneResetPose: .headphone
            case .swing: .swing
            case .tennisStroke: .tennisStroke
            case .pedometerSegment, .pedometerWorkout: .runSegment
            case .tremor: .tremor
            case .recorderQuery: .other
            }
        }
    }

    /// A per-device outbound topic, e.g. `gateway/watch-1/submersion/depth-state`.
    /// - Parameters:
    ///   - id: the device.
    ///   - leaf: the levels below the device id.
    /// - Returns: the topic.
    public func deviceTopic(_ id: DeviceID, _ leaf: Leaf) -> String {
        outboundTopic(rawDevice: id.rawValue, path: leaf.rawValue)
    }

    /// A per-device outbound topic from unchecked levels, for tools and tests that name a device
    /// and a path as text, e.g. `gateway/watch-1/swing`.
    /// - Parameters:
    ///   - device: the device level, used as it is.
    ///   - path: the levels below it, used as they are.
    /// - Returns: the topic.
    public func outboundTopic(rawDevice device: some StringProtocol, path: some StringProtocol) -> String {
        outboundRoot + "/" + device + "/" + path
    }

    /// Everything the gateway publishes below one device, e.g. `gateway/watch-1/#`.
    /// - Parameter device: the device level, used as it is.
    /// - Returns: the filter.
    public func deviceOutboundFilter(rawDevice device: some StringProtocol) -> String { outboundTopic(rawDevice: device, path: "#") }

    /// The filter matching one leaf of every device, e.g. `gateway/+/recorder/query`.
    /// - Parameter leaf: the levels below the device id.
    /// - Returns: the filter.
    public func deviceFilter(_ leaf: Leaf) -> String { outboundRoot + "/+/" + leaf.rawValue }
}
