/// Swing metrics from the two batched streams of one device: WWDC23's "time to contact".
///
/// Feed it every `batched/accelerometer` and `batched/device-motion` batch as it arrives, in
/// any order. It keeps a ``BatchAlignmentWindow`` and runs two streaming detectors over it:
/// an ``ImpactDetector`` on the accelerometer's z axis and a ``RotationSegmenter`` on the
/// rotation rate about gravity. Their candidates are then decided in time order, each once
/// both streams cover it:
///
/// - an **impact** becomes a contact swing when a ``SwingStartDetector`` scan back from it
///   finds a start within the duration bounds and the swing's peak rate and rotation to the
///   impact pass ``SwingConfiguration/minPeakRate`` and ``SwingConfiguration/minRotationAngle``
///   (an impact without such a swing, a knock or a clap, publishes nothing);
/// - a **rotation segment** with no impact between its first sample and
///   ``SwingConfiguration/impactSlack`` after its last, and with the accelerometer covering that
///   time without a gap, becomes a missed swing when the same checks pass, measured from the
///   start to the segment's peak rate (where a swing usually meets the ball).
///
/// Decisions wait until every candidate that could come before them is known (the later of
/// the two streams bounds that), so the events, their order and their values depend only on
/// the samples, never on how they were batched or in which order the batches arrived.
public struct SwingDetector: Sendable {
    /// The settings in use.
    public let configuration: SwingConfiguration
    /// Both batched streams on one time axis.
    public private(set) var window: BatchAlignmentWindow
    private var impacts: ImpactDetector
    private var segments: RotationSegmenter
    private let starts: SwingStartDetector
    private var pendingImpacts: SampleRing<Impact>
    private var pendingSegments: SampleRing<RotationSegment>
    /// Impacts already decided, for the miss rule.
    private var decidedImpacts: SampleRing<Double>
    private var impactsKnownThrough = -Double.infinity
    private var segmentsKnownThrough = -Double.infinity
    /// Candidates dropped because too many waited for the other stream.
    public private(set) var droppedCandidates: UInt64 = 0

    /// Creates a detector.
    public init(configuration: SwingConfiguration) {
        self.configuration = configuration
        window = BatchAlignmentWindow(configuration: configuration)
        impacts = ImpactDetector(configuration: configuration)
        segments = RotationSegmenter(configuration: configuration)
        starts = SwingStartDetector(configuration: configuration)
        pendingImpacts = SampleRing(capacity: 64, filler: Impact(timestamp: 0, peakTimestamp: 0, peak: 0))
        pendingSegments = SampleRing(
            capacity: 64, filler: RotationSegment(direction: 1, firstTimestamp: 0, lastTimestamp: 0, peakTimestamp: 0, peak: 0))
        decidedImpacts = SampleRing(capacity: 16, filler: 0)
    }

    /// Takes a `batched/accelerometer` batch.
    /// - Parameters:
    ///   - samples: the batch's samples, oldest first.
    ///   - output: receives the swings decided now, in time order.
    public mutating func receive(accelerometer samples: [AccelerometerSample], into output: inout [SwingEvent]) {
        impactsKnownThrough = impacts.append(samples, to: &window) { pendingImpacts.appendCounting($0, dropped: &droppedCandidates) }
        decide(final: false, into: &output)
    }

    /// Takes a `batched/device-motion` batch.
    /// - Parameters:
    ///   - samples: the batch's samples, oldest first.
    ///   - output: receives the swings decided now, in time order.
    public mutating func receive(deviceMotion samples: [DeviceMotion], into output: inout [SwingEvent]) {
        window.append(deviceMotion: samples)
        segmentsKnownThrough = segments.scan(window) { pendingSegments.appendCounting($0, dropped: &droppedCandidates) }
        decide(final: false, into: &output)
    }

    /// Decides everything still pending with the samples there are (the streams stopped: the
    /// workout paused or ended), then forgets them.
    /// - Parameter output: receives the swings decided now, in time order.
    public mutating func finish(into output: inout [SwingEvent]) {
        _ = impacts.scan(window, final: true) { pendingImpacts.appendCounting($0, dropped: &droppedCandidates) }
        _ = segments.scan(window, final: true) { pendingSegments.appendCounting($0, dropped: &droppedCandidates) }
        decide(final: true, into: &output)
        reset()
    }

    /// Forgets every sample and candidate (a new workout).
    public mutating func reset() {
        window.removeAll()
        impacts.reset()
        segments.reset()
        pendingImpacts.removeAll()
        pendingSegments.removeAll()
        decidedImpacts.removeAll()
        impactsKnownThrough = -.infinity
        segmentsKnownThrough = -.infinity
    }

    // MARK: Decisions

    private mutating func decide(final: Bool, into output: inout [SwingEvent]) {
        // A candidate is decided once nothing that sorts before it can still appear: impacts
        // are known through `impactsKnownThrough`, segments through `segmentsKnownThrough`, and
        // a miss is keyed after the impact search that decides it.
        let horizon = final ? Double.infinity : min(impactsKnownThrough, segmentsKnownThrough - configuration.impactSlack)
        while true {
            let impactKey = pendingImpacts.first?.timestamp ?? .infinity
            let segmentKey = pendingSegments.first.map { $0.lastTimestamp + configuration.impactSlack } ?? .infinity
            let key = min(impactKey, segmentKey)
            guard key.isFinite, key <= horizon else { return }
            if impactKey <= segmentKey {
                let impact = pendingImpacts.first!
                pendingImpacts.removeFirst()
                decidedImpacts.append(impact.timestamp)
                if let swing = contactSwing(impact) { output.append(swing) }
            } else {
                let segment = pendingSegments.first!
                pendingSegments.removeFirst()
                if let swing = missedSwing(segment) { output.append(swing) }
            }
        }
    }

    private func contactSwing(_ impact: Impact) -> SwingEvent? {
        guard case .success(let start) = starts.findStart(in: window, anchor: impact.timestamp) else { return nil }
        let duration = impact.timestamp - start.timestamp
        guard duration >= configuration.minSwingDuration, duration <= configuration.maxSwingDuration else { return nil }
        let rotation = SwingStartDetector.rotation(in: window, from: start.timestamp, to: impact.timestamp, direction: start.direction)
        guard rotation.peak >= configuration.minPeakRate, rotation.angle >= configuration.minRotationAngle else { return nil }
        return SwingEvent(
            startTimestamp: start.timestamp, impactTimestamp: impact.timestamp, peakRotationRate: rotation.peak, rotationAngle: rotation.angle,
            direction: start.direction)
    }

    private func missedSwing(_ segment: RotationSegment) -> SwingEvent? {
        guard !segment.tooLong, segment.peak >= configuration.minPeakRate else { return nil }
        let searchEnd = segment.lastTimestamp + configuration.impactSlack
        // An impact in the segment makes it a contact (decided, or rejected, on the impact's side).
        for index in 0..<decidedImpacts.count where decidedImpacts[index] >= segment.firstTimestamp && decidedImpacts[index] <= searchEnd {
            return nil
        }
        // No impact seen is only a miss when the accelerometer was there to see one.
        guard window.accelerometerCovers(from: segment.firstTimestamp, through: searchEnd) else { return nil }
        guard case .success(let start) = starts.findStart(in: window, anchor: segment.peakTimestamp), start.direction == segment.direction else {
            return nil
        }
        let duration = segment.peakTimestamp - start.timestamp
        guard duration >= configuration.minSwingDuration, duration <= configuration.maxSwingDuration else { return nil }
        // Measured to the fastest moment, where a swing usually meets the ball, so a miss's
        // angle compares with a contact's.
        let rotation = SwingStartDetector.rotation(in: window, from: start.timestamp, to: segment.peakTimestamp, direction: start.direction)
        guard rotation.angle >= configuration.minRotationAngle else { return nil }
        return SwingEvent(
            startTimestamp: start.timestamp, impactTimestamp: nil, peakRotationRate: segment.peak, rotationAngle: rotation.angle,
            direction: start.direction)
    }
}

extension SampleRing {
    /// Appends, counting the oldest element as dropped when the ring was full.
    fileprivate mutating func appendCounting(_ element: Element, dropped: inout UInt64) {
        if count == capacity { dropped &+= 1 }
        append(element)
    }
}
