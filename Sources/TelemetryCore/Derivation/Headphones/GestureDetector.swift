/// Recognizes nods ("yes") and shakes ("no") from the rotation rate of headphone motion.
///
/// Axes: a nod turns the head about its lateral axis (device X, `rotationRate.x`); a shake
/// about the vertical, whose rate is the rotation rate's component along −gravity (gravity is
/// in the device frame, so this holds whatever the head's tilt).
///
/// Rule, per axis (rates in rad/s, times in sample time):
/// - a sample *swings* when |rate| ≥ ``rotationRate`` and |rate| ≥ ``dominance`` × |rate about
///   the other axis|; a swing starts when such a sample has the opposite sign of the previous
///   swing (or is the first);
/// - swings whose starts are at most ``swingGap`` s apart belong to one gesture; a longer pause
///   ends it;
/// - the gesture is reported once, at the sample that starts its ``swings``-th swing; more
///   swings of the same gesture report nothing more.
///
/// A single look down and back, or a head turn and back, is two swings and not a gesture with
/// the default of three.
public struct GestureDetector: Sendable, Codable {
    /// A recognized gesture.
    public struct Gesture: Sendable, Equatable, Codable {
        /// Which gesture.
        public enum Kind: String, Sendable, CaseIterable, Codable {
            /// Head nodded (pitch swings).
            case nod
            /// Head shaken (yaw swings).
            case shake
        }

        /// Which gesture.
        public var kind: Kind
        /// The first sample of the first swing, s since boot.
        public var startTimestamp: Double
        /// The sample that completed the gesture, s since boot.
        public var timestamp: Double
        /// Swings counted when it was reported.
        public var swings: Int
        /// The largest |rate| about the gesture's axis so far, rad/s.
        public var peakRotationRate: Double

        /// Creates a gesture.
        public init(kind: Kind, startTimestamp: Double, timestamp: Double, swings: Int, peakRotationRate: Double) {
            self.kind = kind
            self.startTimestamp = startTimestamp
            self.timestamp = timestamp
            self.swings = swings
            self.peakRotationRate = peakRotationRate
        }
    }

    private struct Axis: Sendable, Codable {
        var lastSign = 0
        var swings = 0
        var start = 0.0
        var lastSwing = 0.0
        var peak = 0.0
        var reported = false
    }

    /// Rate a swing must reach, rad/s.
    public let rotationRate: Double
    /// Swings needed.
    public let swings: Int
    /// Longest pause between swing starts, s.
    public let swingGap: Double
    /// How much the axis must dominate the other one.
    public let dominance: Double
    private var nod = Axis()
    private var shake = Axis()

    /// Creates a detector.
    public init(rotationRate: Double, swings: Int, swingGap: Double, dominance: Double) {
        self.rotationRate = rotationRate
        self.swings = swings
        self.swingGap = swingGap
        self.dominance = dominance
    }

    /// Feeds one sample.
    /// - Parameters:
    ///   - timestamp: s since boot, newer than the previous sample.
    ///   - rotationRate: rad/s, device frame.
    ///   - gravity: g, device frame (its direction gives the vertical).
    /// - Returns: the gesture this sample completes, if any.
    public mutating func receive(timestamp: Double, rotationRate rate: Vector3, gravity: Vector3) -> Gesture? {
        let up = -gravity.normalized
        let pitchRate = rate.x
        let yawRate = up == .zero ? 0 : rate.dot(up)
        let nodded = step(&nod, .nod, rate: pitchRate, other: yawRate, timestamp: timestamp)
        let shaken = step(&shake, .shake, rate: yawRate, other: pitchRate, timestamp: timestamp)
        return nodded ?? shaken
    }

    /// Forgets swings in progress.
    public mutating func reset() {
        nod = Axis()
        shake = Axis()
    }

    private func step(_ axis: inout Axis, _ kind: Gesture.Kind, rate: Double, other: Double, timestamp: Double) -> Gesture? {
        if axis.swings > 0, timestamp - axis.lastSwing > swingGap { axis = Axis() }
        guard abs(rate) >= rotationRate, abs(rate) >= dominance * abs(other) else { return nil }
        let sign = rate > 0 ? 1 : -1
        if sign != axis.lastSign {
            if axis.swings == 0 { axis.start = timestamp }
            axis.swings += 1
            axis.lastSign = sign
            axis.lastSwing = timestamp
        }
        axis.peak = max(axis.peak, abs(rate))
        guard axis.swings >= swings, !axis.reported else { return nil }
        axis.reported = true
        return Gesture(kind: kind, startTimestamp: axis.start, timestamp: timestamp, swings: axis.swings, peakRotationRate: axis.peak)
    }
}
