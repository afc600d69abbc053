/// Why a recorder query is not answered with data; sent as the final response, with `code`
/// and `detail`.
public struct RecorderQueryError: Error, Sendable, Equatable {
    /// The kind of failure: a small fixed set, fit for a metric dimension.
    public enum Code: String, Sendable, CaseIterable {
        /// The payload is not `{"from","to","kind"?}` with numbers and a known kind.
        case invalidRequest
        /// `from` is after `to`, or a bound is negative or not finite.
        case invalidRange
        /// The range is longer than `recorder.maxQueryRange` (by default the retention window).
        case rangeTooLong
        /// The gateway stores no recorder data (`recorder.database` is null) or the database failed.
        case storeUnavailable
        /// The payload is larger than `recorder.maxQueryPayloadBytes`.
        case payloadTooLarge
        /// The requester already has `recorder.maxQueriesPerRequester` queries queued or running.
        case tooManyQueries
        /// `recorder.queryQueueCapacity` queries are queued or running: the gateway takes no more now.
        case busy
    }

    /// The kind of failure.
    public var code: Code
    /// What is wrong, for people.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, detail: String) {
        self.code = code
        self.detail = detail
    }
}
