/// Why an inbound topic names no usable device stream.
public struct TopicRejection: Sendable, Equatable {
    /// The error code: ``GatewayErrorCode/invalidTopic``, ``GatewayErrorCode/invalidDeviceId``
    /// or ``GatewayErrorCode/unknownStream``.
    public var code: GatewayErrorCode
    /// A human-readable reason for error reports; quoted topic parts in it are bounded in length.
    public var detail: String

    /// Creates a rejection.
    /// - Parameters:
    ///   - code: the topic-level error code.
    ///   - detail: a human-readable reason.
    public init(code: GatewayErrorCode, detail: String) {
        self.code = code
        self.detail = detail
    }
}
