internal import CMosquitto

/// How a subscription is asked for, beyond its filter and QoS (MQTT 5 subscription options).
public struct SubscriptionOptions: Sendable, Hashable {
    /// When the broker sends the retained messages a filter matches (MQTT 5 retain handling).
    public enum RetainHandling: Sendable, Hashable {
        /// At every SUBSCRIBE, also one repeating a subscription the session holds (MQTT's default).
        case atEverySubscribe
        /// Only when the session did not hold the subscription yet: a resumed session's
        /// SUBSCRIBE brings none again.
        case whenNew
        /// Never: only messages published after the subscription.
        case never
    }

    /// The MQTT 5 subscription identifier (1 to 268,435,455) the broker copies onto every
    /// message the filters match (``MQTTProperties/subscriptionIdentifiers``); nil for none.
    public var identifier: Int?
    /// When retained messages come.
    public var retainHandling: RetainHandling

    /// - Parameters:
    ///   - identifier: the subscription identifier, nil for none.
    ///   - retainHandling: when retained messages come (default: at every SUBSCRIBE).
    public init(identifier: Int? = nil, retainHandling: RetainHandling = .atEverySubscribe) {
        self.identifier = identifier
        self.retainHandling = retainHandling
    }

    /// The SUBSCRIBE's option bits for libmosquitto (QoS apart).
    func bits(retainAsPublished: Bool) -> Int32 {
        let retain: UInt32 =
            switch retainHandling {
            case .atEverySubscribe: MQTT_SUB_OPT_SEND_RETAIN_ALWAYS.rawValue
            case .whenNew: MQTT_SUB_OPT_SEND_RETAIN_NEW.rawValue
            case .never: MQTT_SUB_OPT_SEND_RETAIN_NEVER.rawValue
            }
        return Int32(retain | (retainAsPublished ? MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue : 0))
    }
}
