/// The kind of a message the gateway publishes below a device: the bounded `family` label of the
/// latency histogram (`gateway_event_latency_seconds`) and the fleet page's message kinds. Each
/// ``TopicScheme/Leaf`` names its family (``TopicScheme/Leaf/family``); the raw value is the label.
public enum EventFamily: String, Sendable, CaseIterable {
    /// Bridge presence.
    case connection
    /// Capabilities, entitlements and authorization.
    case availability
    /// Rejected frames of the device.
    case errors
    /// Rejected frames republished with their original bytes.
    case deadLetter = "dead_letter"
    /// Depth-state changes.
    case depthState = "depth_state"
    /// The other submersion events: dives, temperature, ascent warnings, safety stops.
    case submersion
    /// Headphone connection state.
    case headphoneConnection = "headphone_connection"
    /// Head pose.
    case headphonePose = "headphone_pose"
    /// The other headphone events: hand-offs, posture, gestures.
    case headphone
    /// Swing metrics.
    case swing
    /// Tennis strokes.
    case tennisStroke = "tennis_stroke"
    /// Run segments and workout summaries.
    case runSegment = "run_segment"
    /// Tremor results.
    case tremor
    /// Anything else (a leaf the gateway only listens on).
    case other
}
