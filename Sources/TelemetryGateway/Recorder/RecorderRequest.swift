import TelemetryCore

/// A recorder query as the subscriber received it on `gateway/{id}/recorder/query/{requester}`: copied out
/// of libmosquitto's callback, with the MQTT 5 properties its answer needs.
struct RecorderRequest: Sendable {
    /// The device the topic names.
    var device: DeviceID
    /// The topic level after `recorder/query/` (the requester's user name, proven by the broker
    /// ACL); nil when the topic has none.
    var requester: String?
    /// The request payload, `{"from","to","kind"?}`.
    var payload: [UInt8]
    /// Where to answer (MQTT 5 response topic); nil when the requester sent none.
    var responseTopic: String?
    /// Echoed on every answer so the requester can match it.
    var correlationData: [UInt8]?
    /// When it arrived, Unix epoch seconds.
    var receivedAt: Double
    /// Set when the query was refused on arrival (``RecorderQueryAdmission``): the error
    /// answered instead of reading the store.
    var refusal: RecorderQueryError?
}
