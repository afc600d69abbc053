/// The headphone derivations of one device: connection state, bud hand-offs, head pose,
/// posture and gestures, from `headphone/connection`, `headphone/motion` and `status` frames.
///
/// Samples are taken in order: a sample whose timestamp is not newer than every sample before
/// (a duplicate, a late or replayed batch) is ignored. Timestamps restart when the phone
/// reboots, so the newest timestamp is forgotten when a `connected` event or a `status`
/// offline changes the connection state.
///
/// Pose, hand-offs, posture and gestures are derived only from samples taken while connected.
/// The reference pose is the first sample after a `connected` event (the bridge's
/// `headphoneMotionManagerDidConnect`), after ``resetPose(at:retained:)``, or the first sample
/// ever; it is kept across `streamResumed` (a stall measured on the gateway's clock) and across
/// bud hand-offs (Core Motion presents one head attitude whichever bud streams).
///
/// Outputs (`docs/headphones.md`), below the outbound root:
/// - `{id}/headphone/connection` retained, QoS 1: every transition of ``HeadphoneConnectionTracker``;
/// - `{id}/headphone/sensor-location` QoS 1: hand-offs (``BudHandoffDetector``);
/// - `{id}/headphone/pose` QoS 0: relative head pose, rate-limited (``HeadPoseTracker``);
/// - `{id}/headphone/posture` QoS 1: `headDown` / `upright` (``PostureMonitor``);
/// - `{id}/headphone/gesture` QoS 1: `nod` / `shake` (``GestureDetector``).
public struct HeadphoneDeriver: Sendable, Codable {
    /// The settings.
    public let configuration: HeadphoneConfiguration
    /// The connection state machine.
    public private(set) var connection: HeadphoneConnectionTracker
    /// The streaming bud.
    public private(set) var buds = BudHandoffDetector()
    /// The reference pose and the pose rate limit.
    public private(set) var pose: HeadPoseTracker
    /// The posture rule.
    public private(set) var posture: PostureMonitor
    /// The nod and shake rule.
    public private(set) var gestures: GestureDetector
    /// The newest sample timestamp taken; nil before the first or after a timeline restart.
    public private(set) var newestTimestamp: Double?

    /// Creates the state of a device seen for the first time.
    /// - Parameter configuration: the settings; check ``HeadphoneConfiguration/configurationProblem`` first.
    public init(configuration: HeadphoneConfiguration = HeadphoneConfiguration()) {
        self.configuration = configuration
        connection = HeadphoneConnectionTracker(streamTimeout: configuration.streamTimeout, resumeSpan: configuration.resumeSpan)
        pose = HeadPoseTracker(rate: configuration.poseRate)
        posture = PostureMonitor(angle: configuration.postureAngle, duration: configuration.postureDuration, hysteresis: configuration.postureHysteresis)
        gestures = GestureDetector(
            rotationRate: configuration.gestureRotationRate, swings: configuration.gestureSwings, swingGap: configuration.gestureSwingGap,
            dominance: configuration.gestureDominance)
    }

    /// Feeds one accepted frame; frames of other streams are ignored.
    /// - Returns: the events to publish, in order.
    public mutating func receive(_ frame: DecodedFrame, context: DerivationContext) -> [OutboundMessage] {
        switch frame {
        case .headphoneConnection(let event, _):
            guard let transition = connection.receive(event, receivedAt: context.receivedAt) else { return [] }
            if transition.state == .connected { newestTimestamp = nil }
            return [apply(transition, sensorLocation: buds.current, context: context)]
        case .status(let status, _):
            guard let transition = connection.receive(status, receivedAt: context.receivedAt) else { return [] }
            newestTimestamp = nil
            return [apply(transition, sensorLocation: buds.current, context: context)]
        case .headphoneMotion(let batch):
            var messages: [OutboundMessage] = []
            for sample in batch.samples { receive(sample, context: context, into: &messages) }
            return messages
        default:
            return []
        }
    }

    /// Lets the stream timeout fire.
    /// - Parameters:
    ///   - now: the gateway's current time, Unix epoch seconds.
    ///   - context: the device's context.
    /// - Returns: a `streamTimeout` connection message, if the stream went silent.
    public mutating func tick(now: Double, context: DerivationContext) -> [OutboundMessage] {
        guard let transition = connection.tick(now: now) else { return [] }
        return [apply(transition, sensorLocation: buds.current, context: context)]
    }

    /// A `reset-pose` command: the next sample taken while connected becomes the reference pose
    /// (and is published as the identity pose); a posture episode in progress ends silently.
    ///
    /// Retained commands are ignored: a reset is an instant action, and a retained one would
    /// be replayed to the gateway on every (re)subscription and re-anchor the pose long after
    /// the user asked.
    /// - Parameters:
    ///   - receivedAt: arrival time, gateway clock (the command has no sample timestamp; it
    ///     applies in arrival order relative to the device's frames on the same worker).
    ///   - retained: whether the broker delivered it from its retained store.
    /// - Returns: whether the reset was applied.
    @discardableResult
    public mutating func resetPose(at receivedAt: Double, retained: Bool = false) -> Bool {
        guard !retained else { return false }
        pose.resetReference()
        posture.reset()
        return true
    }

    // MARK: Samples

    private mutating func receive(_ sample: DeviceMotion, context: DerivationContext, into messages: inout [OutboundMessage]) {
        if let newestTimestamp, sample.timestamp <= newestTimestamp { return }
        newestTimestamp = sample.timestamp
        if let transition = connection.receiveSample(timestamp: sample.timestamp, sensorLocation: sample.sensorLocation, receivedAt: context.receivedAt) {
            let location = sample.sensorLocation == .default ? buds.current : sample.sensorLocation
            messages.append(apply(transition, sensorLocation: location, context: context))
        }
        guard connection.isConnected else { return }
        if let handoff = buds.receive(sample.sensorLocation, timestamp: sample.timestamp) {
            messages.append(Self.handoffMessage(handoff, context: context))
        }
        let (current, publish) = pose.update(attitude: sample.attitude, timestamp: sample.timestamp)
        if publish { messages.append(Self.poseMessage(current, context: context)) }
        if let event = posture.receive(pitch: current.pitch, timestamp: sample.timestamp) {
            messages.append(Self.postureMessage(event, context: context))
        }
        if let gesture = gestures.receive(timestamp: sample.timestamp, rotationRate: sample.rotationRate, gravity: sample.gravity) {
            messages.append(Self.gestureMessage(gesture, context: context))
        }
    }

    /// Resets what a connection change invalidates and returns the connection message.
    private mutating func apply(_ transition: HeadphoneConnectionTransition, sensorLocation: SensorLocation?, context: DerivationContext) -> OutboundMessage {
        // Only the bridge's own connect event re-anchors: a stall (`streamResumed`) may be the
        // broker or the network, and the head attitude's frame did not change with it.
        if transition.state == .connected, transition.reason == .event { pose.resetReference() }
        posture.reset()
        gestures.reset()
        return Self.connectionMessage(transition, sensorLocation: sensorLocation, context: context)
    }
}
