import MQTTVocabulary

/// MQTT 5 properties of a PUBLISH (or will) that the gateway reads and writes.
public struct MQTTProperties: Sendable, Equatable {
    /// MIME type of the payload, e.g. `application/json` or `application/x-protobuf`.
    public var contentType: String?
    /// Seconds after which the broker discards the message if it is still undelivered.
    public var messageExpiryInterval: UInt32?
    /// Topic a responder should answer on (request/response).
    public var responseTopic: String?
    /// Opaque bytes a responder echoes back to match request and response.
    public var correlationData: [UInt8]?
    /// User properties in the order they appear on the wire.
    public var userProperties: [UserProperty]
    /// Received only: the identifiers of the subscriptions the message matched (MQTT 5 lets a
    /// broker send one copy per matching subscription, as mosquitto does, or one with all).
    public var subscriptionIdentifiers: [Int] = []

    /// Creates a property set; every property defaults to absent.
    public init(
        contentType: String? = nil,
        messageExpiryInterval: UInt32? = nil,
        responseTopic: String? = nil,
        correlationData: [UInt8]? = nil,
        userProperties: [UserProperty] = []
    ) {
        self.contentType = contentType
        self.messageExpiryInterval = messageExpiryInterval
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.userProperties = userProperties
    }

    /// True when no property is set.
    public var isEmpty: Bool {
        contentType == nil && messageExpiryInterval == nil && responseTopic == nil && correlationData == nil
            && userProperties.isEmpty && subscriptionIdentifiers.isEmpty
    }
}
