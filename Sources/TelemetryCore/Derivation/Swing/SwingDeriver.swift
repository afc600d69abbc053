/// The swing features of one device: swing metrics from the batched streams
/// (`gateway/{id}/swing`) and tennis strokes from the per-sample motion stream
/// (`gateway/{id}/tennis/stroke`).
///
/// Pure: no clock, no I/O; frames arrive in the device's order from one worker. The detector
/// (≈ 17 KB with the defaults: 4 s of device motion and the newest accelerometer samples) and
/// the counter are created on the device's first frame that needs them, so devices that never
/// send those streams cost nothing.
///
/// - `batched/accelerometer` and `batched/device-motion` feed a ``SwingDetector`` (the access
///   checks already let them through only while a workout runs).
/// - `motion` feeds a ``TennisStrokeCounter`` while a workout of one of
///   ``TennisConfiguration/activityTypes`` runs, with the wrist from the device's `hello`;
///   without one the strokes are `unknown` (rotation kept), counted apart.
/// - `workout`: a workout that starts (running after none, or after one ended, or of another
///   activity type) zeroes the stroke counts and empties the swing window; pausing or ending it
///   leaves the pending swings open until ``finishSession(context:)``, which the pipeline calls
///   once the session's end grace (`session.endGrace`) is over, so the batch that arrives after
///   the end still completes them.
public struct SwingDeriver: Sendable {
    /// The settings in use.
    public let configuration: SwingConfiguration
    /// The batched swing detector, once a batched frame arrived.
    public private(set) var detector: SwingDetector?
    /// The tennis stroke counter (its counts are the current workout's), once strokes were counted.
    public private(set) var strokes: TennisStrokeCounter?
    /// The latest workout state, if a workout frame was seen.
    public private(set) var workoutState: WorkoutState?
    /// The latest workout's HealthKit activity type (a pause or end without one keeps it).
    public private(set) var activityType: String?
    /// Whether the session paused or ended and its pending swings were not decided yet.
    public private(set) var sessionUnfinished = false
    /// Strokes published since the device was first seen, by kind (not reset per workout).
    private var strokeTally = DerivationTally()

    /// The device's cumulative counts: strokes by kind and dropped swing candidates.
    public var tally: DerivationTally {
        var tally = strokeTally
        tally.droppedSwingCandidates = Int(clamping: detector?.droppedCandidates ?? 0)
        return tally
    }

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
            // Unknown until the hello says: watchOS's left-wrist default would swap the strokes
            // of every right-wrist player.
            let wrist = context.descriptor?.wristLocation
            if strokes == nil { strokes = TennisStrokeCounter(configuration: configuration.tennis) }
            var messages: [OutboundMessage] = []
            for sample in batch.samples {
                if let stroke = strokes!.process(sample, wrist: wrist) {
                    strokeTally.count(stroke.kind)
                    messages.append(stroke.message(context: context))
                }
            }
            return messages
        case .workout(let event, _):
            var swings: [SwingEvent] = []
            switch event.state {
            case .running:
                let startsWorkout = workoutState == nil || workoutState == .ended || activityType != event.activityType
                if startsWorkout {
                    // A session ended within its grace still owes its pending swings.
                    if sessionUnfinished { detector?.finish(into: &swings) }
                    detector?.reset()
                    strokes?.resetCounts()
                }
                sessionUnfinished = false
            case .paused, .ended:
                // The pending swings wait for the session's finish (``finishSession(context:)``):
                // the batch holding the last samples arrives after the end.
                sessionUnfinished = true
            }
            workoutState = event.state
            activityType = event.activityType ?? activityType
            return swings.map { $0.message(context: context) }
        default:
            return []
        }
    }

    /// Decides the swings still pending with the samples there are: the session paused or ended
    /// and its end grace is over (the access checks say when; ``FrameProcessor`` calls this).
    /// - Parameter context: the device and topic layout.
    /// - Returns: the swings decided now.
    public mutating func finishSession(context: DerivationContext) -> [OutboundMessage] {
        sessionUnfinished = false
        var swings: [SwingEvent] = []
        detector?.finish(into: &swings)
        return swings.map { $0.message(context: context) }
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
                EventID.make(context.device.rawValue, TopicScheme.Leaf.swing.rawValue, String(describing: start), impactTimestamp.map { String(describing: $0) } ?? "miss"))
            $0.field("startTimestamp", start)
            $0.field("impactTimestamp", impactTimestamp)
            $0.field("timeToContact", impactTimestamp.map { ($0 - startTimestamp).rounded(toPlaces: 6) })
            $0.field("contact", contact)
            $0.field("peakRotationRate", peakRotationRate.rounded(toPlaces: 4))
            $0.field("rotationAngle", rotationAngle.rounded(toPlaces: 4))
        }
        return OutboundMessage(.swing, of: context.device, in: context.scheme, payload: writer.bytes)
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
            $0.field("eventId", EventID.make(context.device.rawValue, TopicScheme.Leaf.tennisStroke.rawValue, String(describing: timestamp), kind.rawValue))
            $0.field("stroke", kind.rawValue)
            $0.field("rotation", rotation.rawValue)
            $0.field("timestamp", timestamp)
            $0.field("forehandCount", forehandCount)
            $0.field("backhandCount", backhandCount)
            $0.field("unknownCount", unknownCount)
        }
        return OutboundMessage(.tennisStroke, of: context.device, in: context.scheme, payload: writer.bytes)
    }
}

/// A device's swing state as kept across a restart: the workout session and the current
/// workout's stroke counts. The sample windows (the detector's ≈ 17 KB, the stroke counter's
/// few seconds) are left out on purpose: they cover seconds, would make every snapshot large,
/// and start empty again, so a swing in progress at the restart may be missed, unless the
/// journal replays the batched frames of the last few seconds (clustered, on the same disk:
/// docs/reliability.md).
extension SwingDeriver: Codable {
    private enum CodingKeys: String, CodingKey {
        case configuration, workoutState, activityType, sessionUnfinished, strokeCounts
    }

    /// The current workout's stroke counts.
    private struct StrokeCounts: Codable {
        var forehands: Int
        var backhands: Int
        var unknown: Int
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(configuration: try container.decode(SwingConfiguration.self, forKey: .configuration))
        workoutState = try container.decodeIfPresent(WorkoutState.self, forKey: .workoutState)
        activityType = try container.decodeIfPresent(String.self, forKey: .activityType)
        sessionUnfinished = try container.decode(Bool.self, forKey: .sessionUnfinished)
        if let counts = try container.decodeIfPresent(StrokeCounts.self, forKey: .strokeCounts) {
            strokes = TennisStrokeCounter(
                configuration: configuration.tennis, forehands: counts.forehands, backhands: counts.backhands, unknown: counts.unknown)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(configuration, forKey: .configuration)
        try container.encodeIfPresent(workoutState, forKey: .workoutState)
        try container.encodeIfPresent(activityType, forKey: .activityType)
        try container.encode(sessionUnfinished, forKey: .sessionUnfinished)
        if let strokes {
            let counts = StrokeCounts(forehands: strokes.forehandCount, backhands: strokes.backhandCount, unknown: strokes.unknownCount)
            try container.encode(counts, forKey: .strokeCounts)
        }
    }
}
