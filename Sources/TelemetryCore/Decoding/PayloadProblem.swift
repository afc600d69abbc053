/// Why a payload cannot be accepted: what is wrong and where, as a value.
///
/// Decoding (``FrameDecoder``) and validation (``FrameValidator``) report problems with it, and the
/// pipeline publishes ``detail`` as an `invalidPayload` error. ``detail`` names the member by its
/// path and, inside a batch, the sample index: `samples[412].acceleration.z: not a number`,
/// `samples[3].attitude: missing`, `state: unknown value 'diving'; expected one of …`.
public struct PayloadProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem: a small fixed set, fit for a metric dimension.
    public enum Reason: String, Sendable, CaseIterable {
        /// Empty, not well-formed JSON, or the top-level value is not an object.
        case notJSONObject
        /// A required member is absent.
        case missingField
        /// A member has the wrong JSON type (e.g. a string where a number belongs).
        case wrongType
        /// An enumeration member holds no known case name or raw value.
        case unknownValue
        /// An integer member does not fit its type (negative, fractional or too large).
        case notRepresentable
        /// A number is NaN or infinite (possible in binary encodings; JSON has no such numbers).
        case notFinite
        /// A value lies outside its physical bounds (``ValidationLimits``).
        case outOfBounds
        /// A batch holds no samples or more than its stream allows.
        case sampleCount
        /// A sample's timestamp is earlier than the one before it.
        case timestampOrder
        /// The payload's encoding is not supported (yet).
        case unsupportedEncoding
        /// The decoder itself failed (out of memory or a bug), not the payload.
        case decoderFailure
    }

    /// The kind of problem.
    public var reason: Reason
    /// The member's path, e.g. `samples[412].acceleration.z`; empty when the problem concerns the
    /// whole payload.
    public var field: String
    /// What is wrong, e.g. `not a number`.
    public var message: String

    /// Creates a problem.
    /// - Parameters:
    ///   - reason: the kind of problem.
    ///   - field: the member's path, or empty for the whole payload.
    ///   - message: what is wrong.
    public init(_ reason: Reason, field: String = "", message: String) {
        self.reason = reason
        self.field = field
        self.message = message
    }

    /// `field: message`, or just the message when no member is at fault; the `detail` of the
    /// `invalidPayload` error report.
    public var detail: String { field.isEmpty ? message : "\(field): \(message)" }

    /// The ``detail``.
    public var description: String { detail }
}
