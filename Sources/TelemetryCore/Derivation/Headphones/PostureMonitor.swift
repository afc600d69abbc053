/// Watches for the head staying pitched down (looking at a phone, "text neck").
///
/// Rule (pitch relative to the reference pose, degrees; times in sample time):
/// - the head is *down* while pitch < −``angle``;
/// - after it has been down continuously for ``duration`` s, `headDown` is reported (once);
///   coming up to pitch ≥ −``angle`` earlier cancels the episode without a report;
/// - after `headDown`, `upright` is reported when pitch ≥ −(``angle`` − ``hysteresis``), so noise
///   at the threshold cannot flap.
///
/// ``reset()`` (disconnection, new reference pose) ends an episode silently: the pitch is no
/// longer comparable.
public struct PostureMonitor: Sendable, Codable {
    /// A posture report.
    public struct Event: Sendable, Equatable, Codable {
        /// Which report.
        public enum Kind: String, Sendable, CaseIterable, Codable {
            /// The head has been down for the configured time.
            case headDown
            /// The head came back up after `headDown`.
            case upright
        }

        /// Which report.
        public var kind: Kind
        /// The first sample of the episode (head down), s since boot.
        public var startTimestamp: Double
        /// The sample that triggered the report, s since boot.
        public var timestamp: Double
        /// The pitch of that sample, degrees.
        public var pitch: Double

        /// Creates a report.
        public init(kind: Kind, startTimestamp: Double, timestamp: Double, pitch: Double) {
            self.kind = kind
            self.startTimestamp = startTimestamp
            self.timestamp = timestamp
            self.pitch = pitch
        }

        /// Seconds the head has been (or was) down: `timestamp − startTimestamp`.
        public var duration: Double { timestamp - startTimestamp }
    }

    private enum Phase: Sendable, Codable {
        case upright
        case pending(since: Double)
        case down(since: Double)
    }

    /// Degrees below the reference pitch that count as down.
    public let angle: Double
    /// Seconds the head must stay down.
    public let duration: Double
    /// Degrees above −angle needed to report recovery.
    public let hysteresis: Double
    private var phase = Phase.upright

    /// Creates a monitor.
    public init(angle: Double, duration: Double, hysteresis: Double) {
        self.angle = angle
        self.duration = duration
        self.hysteresis = hysteresis
    }

    /// Whether `headDown` was reported and `upright` not yet.
    public var isHeadDown: Bool {
        if case .down = phase { return true }
        return false
    }

    /// Feeds one sample's relative pitch.
    /// - Parameters:
    ///   - pitch: degrees relative to the reference pose (negative: chin down).
    ///   - timestamp: the sample's timestamp, s since boot, newer than the previous one.
    /// - Returns: a report, if this sample triggers one.
    public mutating func receive(pitch: Double, timestamp: Double) -> Event? {
        let isDown = pitch < -angle
        switch phase {
        case .upright:
            guard isDown else { return nil }
            phase = .pending(since: timestamp)
            return reportIfLongEnough(since: timestamp, timestamp: timestamp, pitch: pitch)
        case .pending(let since):
            guard isDown else {
                phase = .upright
                return nil
            }
            return reportIfLongEnough(since: since, timestamp: timestamp, pitch: pitch)
        case .down(let since):
            guard pitch >= -(angle - hysteresis) else { return nil }
            phase = .upright
            return Event(kind: .upright, startTimestamp: since, timestamp: timestamp, pitch: pitch)
        }
    }

    /// Ends any episode without a report.
    public mutating func reset() {
        phase = .upright
    }

    private mutating func reportIfLongEnough(since: Double, timestamp: Double, pitch: Double) -> Event? {
        guard timestamp - since >= duration - HeadphoneConnectionTracker.timestampTolerance else { return nil }
        phase = .down(since: since)
        return Event(kind: .headDown, startTimestamp: since, timestamp: timestamp, pitch: pitch)
    }
}
