/// The swing features of one device: swing metrics from the batched streams
/// (`gateway/{id}/swing`) and tennis strokes from the per-sample motion stream
/// (`gateway/{id}/tennis/stroke`).
///
/// Pure: no clock, no I/O; frames arrive in the device's order from one worker. The detector
/// (its window is ≈ 100 KB with the defaults) and the counter are created on the device's first
/// frame that needs them, so devices that never send those streams cost nothing.
///
/// - `batched/accelerometer` and `batched/device-motion` feed a ``SwingDetector`` (the access
///   checks already let them through only while a workout runs).
/// - `motion` feeds a ``TennisStrokeCounter`` while a workout of one of
///   ``TennisConfiguration/activityTypes`` runs, with the wrist from the device's `hello`
///   (watchOS's default, the left wrist, when the hello does not say).
/// - `workout`: a workout that starts (running after none, or after one ended, or of another
///   activity type) zeroes the stroke counts and empties the swing window; pausing or ending it
///   decides the swings still pending with the samples there are.
public struct SwingDeriver: Sendable {
    /// The settings in use.
    public let configuration: SwingConfiguration
    /// The batched swing detector, once a batched frame arrived.
    public private(set) var detector: SwingDetector?
    /// The tennis stroke counter (its counts are the current workout's), once strokes were counted.
    public private(set) var strokes: TennisStrokeCounter?
    /// The latest workout state, if a workout frame was seen.
    public private(set) var workoutState: WorkoutState?
    /// The latest workout's HealthKit activity type.
    public private(set) var activityType: String?

    /// Creates the state of a device seen for the first time.
    public init(configuration: SwingConfiguration) {
        self.configuration = configuration
    }

    /// Feeds one accepted frame.
    /// - Returns: the swing and stroke events to publish, in the order derived.
    public mutating func receive(_ frame: DecodedFrame, context: DerivationContext) -> [OutboundMessage] {
        switch frame {
        case .batchedAccelerometer(let batch):
            if detector == nil { detector = SwingDetector(configuration: configuration) }
            var swings: [SwingEvent] = []
            detector!.receive(accelerometer: batch.samples, into: &swings)
            return swings.map { $0.message(context: context) }
        case .batchedDeviceMotion(let batch):
            if detector == nil { detector = SwingDetector(configuration: configuration) }
            var swings: [SwingEvent] = []
            detector!.receive(deviceMotion: batch.samples, into: &swings)
            return swings.map { $0.message(context: context) }
        case .motion(let batch):
            guard countsStrokes else { return [] }
            let wrist = context.descriptor?.wristLocation ?? .left
            if strokes == nil { strokes = TennisStrokeCounter(configuration: configuration.tennis) }
            var messages: [OutboundMessage] = []
            for sample in batch.samples {
                if let stroke = strokes!.process(sample, wrist: wrist) { messages.append(stroke.message(context: context)) }
            }
            return messages
        case .workout(let event, _):
            var swings: [SwingEvent] = []
            switch event.state {
            case .running:
                let startsWorkout = workoutState == nil || workoutState == .ended || activityType != event.activityType
                if startsWorkout {
                    detector?.reset()
                    strokes?.resetCounts()
                }
            case .paused, .ended:
                detector?.finish(into: &swings)
            }
            workoutState = event.state
            activityType = event.activityType
            return swings.map { $0.message(context: context) }
        default:
            return []
        }
    }

    /// Whether `motion` samples are counted as tennis strokes now.
    private var countsStrokes: Bool {
        let types = configuration.tennis.activityTypes
        if types.isEmpty { return true }
        guard workoutState == .running, let activityType else { return false }
        return types.contains(activityType)
    }
}

extension SwingEvent {
    /// The `gateway/{id}/swing` message (QoS 1, not retained).
    ///
    /// Times are seconds since boot as the device's samples (the start rounded to 1 µs, being
    /// computed), rates rad/s and angles rad rounded to 10⁻⁴. The event id hashes the device,
    /// the start and the impact (or `miss`), so reprocessing the same batches gives the same id.
    /// - Parameter context: the device and topic layout.
    /// - Returns: the message.
    public func message(context: DerivationContext) -> OutboundMessage {
        let start = startTimestamp.rounded(toPlaces: 6)
        var writer = JSONWriter(capacity: 256)
        writer.object {
            $0.field("deviceId", context.device.rawValue)
            $0.field(
                "eventId",
                EventID.make(context.device.rawValue, "swing", String(describing: start), impactTimestamp.map { String(describing: $0) } ?? "miss"))
            $0.field("startTimestamp", start)
            $0.field("impactTimestamp", impactTimestamp)
            $0.field("timeToContact", impactTimestamp.map { ($0 - startTimestamp).rounded(toPlaces: 6) })
            $0.field("contact", contact)
            $0.field("peakRotationRate", peakRotationRate.rounded(toPlaces: 4))
            $0.field("rotationAngle", rotationAngle.rounded(toPlaces: 4))
        }
        return OutboundMessage(topic: context.scheme.deviceTopic(context.device, "swing"), payload: writer.bytes, qos: 1, retain: false)
    }
}

extension TennisStroke {
    /// The `gateway/{id}/tennis/stroke` message (QoS 1, not retained).
    ///
    /// The event id hashes the device, the sample timestamp and the stroke, not the counts, so
    /// reprocessing the same motion (even after a gateway restart reset the counts) gives the
    /// same id.
    /// - Parameter context: the device and topic layout.
    /// - Returns: the message.
    public func message(context: DerivationContext) -> OutboundMessage {
        var writer = JSONWriter(capacity: 192)
        writer.object {
            $0.field("deviceId", context.device.rawValue)
            $0.field("eventId", EventID.make(context.device.rawValue, "tennis/stroke", String(describing: timestamp), kind.rawValue))
            $0.field("stroke", kind.rawValue)
            $0.field("timestamp", timestamp)
            $0.field("forehandCount", forehandCount)
            $0.field("backhandCount", backhandCount)
        }
        return OutboundMessage(topic: context.scheme.deviceTopic(context.device, "tennis/stroke"), payload: writer.bytes, qos: 1, retain: false)
    }
}

extension Double {
    /// Rounded to `places` decimal places (for published values computed from samples).
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
