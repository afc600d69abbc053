/// Keeps the reference attitude and turns samples into poses relative to it.
///
/// The reference is the first sample given after a (re)set: the deriver resets it on a
/// `connected` event and on a `reset-pose` command (not on `streamResumed`). Every sample yields its pose (the
/// posture rule needs all of them); the rate limiter says which ones to publish.
public struct HeadPoseTracker: Sendable, Codable {
    /// The reference sample's attitude and timestamp; nil until the next sample after a reset.
    public private(set) var reference: Reference?

    /// The sample poses are relative to.
    public struct Reference: Sendable, Equatable, Codable {
        /// Its attitude.
        public var attitude: Quaternion
        /// Its timestamp, device clock seconds.
        public var timestamp: Double
    }
    /// Which poses are published.
    public private(set) var limiter: PoseRateLimiter

    /// Creates a tracker with no reference.
    /// - Parameter rate: the most published poses per second of sample time.
    public init(rate: Double) {
        limiter = PoseRateLimiter(rate: rate)
    }

    /// Makes the next sample the reference (and publishes it, as the identity pose).
    public mutating func resetReference() {
        reference = nil
        limiter.reset()
    }

    /// The pose of one sample, taking it as the reference if there is none.
    /// - Parameters:
    ///   - attitude: the sample's attitude.
    ///   - timestamp: its timestamp, s since boot.
    /// - Returns: the pose and whether the rate limit lets it be published.
    public mutating func update(attitude: Quaternion, timestamp: Double) -> (pose: HeadPose, publish: Bool) {
        let current = reference ?? Reference(attitude: attitude, timestamp: timestamp)
        reference = current
        let pose = HeadPose.relative(attitude, to: current.attitude, timestamp: timestamp, referenceTimestamp: current.timestamp)
        return (pose, limiter.admit(timestamp))
    }
}
