/// Why the gateway dropped an inbound frame, as published in the `code` field of error reports.
///
/// The first six cases are the contract's check failures; the last three are topic-level
/// failures reported on `gateway/errors` because the frame names no usable device or stream.
public enum GatewayErrorCode: String, Sendable, CaseIterable {
    /// The payload is undecodable, misses or mistypes a field, holds NaN, is out of bounds or oversize.
    case invalidPayload
    /// The device id is not in the registry while the registry is closed.
    case unknownDevice
    /// The device's model or OS lacks the capability the stream needs (or it sent no `hello`).
    case notAvailable
    /// The device's latest motion authorization status is not `authorized`.
    case notAuthorized
    /// The registry does not grant the entitlement the stream needs.
    case notEntitled
    /// A batched frame arrived outside a running workout session.
    case noActiveWorkout
    /// The topic is not below the inbound root at all.
    case invalidTopic
    /// The device id level of the topic breaks the id syntax.
    case invalidDeviceId
    /// The topic's stream path (below the device id) is missing or not in the contract.
    case unknownStream

    /// The matching Core Motion `CMError` raw value, published as `cmError`, or nil when Core Motion has none.
    public var cmError: Int? {
        switch self {
        case .invalidPayload: 107  // CMErrorInvalidParameter
        case .noActiveWorkout: 108  // CMErrorInvalidAction
        case .notAvailable: 109  // CMErrorNotAvailable
        case .notEntitled: 110  // CMErrorNotEntitled
        case .notAuthorized: 111  // CMErrorNotAuthorized
        case .unknownDevice, .invalidTopic, .invalidDeviceId, .unknownStream: nil
        }
    }

    /// Whether the code is about the topic (reported on `gateway/errors`) rather than a device's frame.
    public var isTopicLevel: Bool {
        switch self {
        case .invalidTopic, .invalidDeviceId, .unknownStream: true
        default: false
        }
    }
}
