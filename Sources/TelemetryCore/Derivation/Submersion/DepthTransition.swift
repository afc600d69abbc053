/// A change of a device's depth state, published on `gateway/{id}/submersion/depth-state`.
public struct DepthTransition: Sendable, Equatable, Codable {
    /// What made the state change.
    public enum Cause: String, Sendable, Equatable, Codable {
        /// A `submersion/event` (submerged or notSubmerged).
        case event
        /// A `submersion/measurement` (its depth, its pressure, or its own state).
        case measurement
        /// No submersion frame for the configured silence: the state became unknown.
        case silence
        /// Depth and pressure said the surface for ``SubmersionConfiguration/surfaceTimeout``
        /// although no `notSubmerged` event came (lost): the state became not submerged.
        case surfaceTimeout
    }

    /// The state before.
    public var previous: DepthState
    /// The new state.
    public var state: DepthState
    /// The date of the input that caused the change (for silence: of the last input), Unix
    /// epoch seconds.
    public var date: Double
    /// The depth (m) that decided the change, when a measurement gave one.
    public var depth: Double?
    /// What made the state change.
    public var cause: Cause

    /// Creates a transition.
    /// - Parameters:
    ///   - previous: the state before.
    ///   - state: the new state.
    ///   - date: the causing input's date, Unix epoch seconds.
    ///   - depth: the depth that decided it, m, if any.
    ///   - cause: event, measurement or silence.
    public init(previous: DepthState, state: DepthState, date: Double, depth: Double? = nil, cause: Cause) {
        self.previous = previous
        self.state = state
        self.date = date
        self.depth = depth
        self.cause = cause
    }

    /// Whether the change enters the water (from unknown or not submerged to a submerged band).
    public var startsDive: Bool { !previous.isSubmergedBand && state.isSubmergedBand }
    /// Whether the change leaves the water (or loses it: silence).
    public var endsDive: Bool { previous.isSubmergedBand && !state.isSubmergedBand }
}
