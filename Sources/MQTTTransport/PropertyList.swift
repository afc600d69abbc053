internal import CMosquitto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Converts between ``MQTTProperties`` and libmosquitto's `mosquitto_property` lists.
enum PropertyList {
    /// Builds a property list for a PUBLISH or will. The caller owns the result and frees it
    /// with `mosquitto_property_free_all` (unless libmosquitto took ownership).
    static func make(_ properties: MQTTProperties) -> OpaquePointer? {
        guard !properties.isEmpty else { return nil }
        var list: OpaquePointer?
        if let contentType = properties.contentType {
            mosquitto_property_add_string(&list, Int32(MQTT_PROP_CONTENT_TYPE.rawValue), contentType)
        }
        if let expiry = properties.messageExpiryInterval {
            mosquitto_property_add_int32(&list, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expiry)
        }
        if let responseTopic = properties.responseTopic {
            mosquitto_property_add_string(&list, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), responseTopic)
        }
        if let correlation = properties.correlationData {
            correlation.withUnsafeBytes { bytes in
                _ = mosquitto_property_add_binary(
                    &list, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), bytes.baseAddress, UInt16(clamping: bytes.count))
            }
        }
        for property in properties.userProperties {
            mosquitto_property_add_string_pair(&list, Int32(MQTT_PROP_USER_PROPERTY.rawValue), property.name, property.value)
        }
        return list
    }

    /// Builds the CONNECT property list (session expiry).
    static func connectProperties(sessionExpiry: UInt32) -> OpaquePointer? {
        guard sessionExpiry > 0 else { return nil }
        var list: OpaquePointer?
        mosquitto_property_add_int32(&list, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), sessionExpiry)
        return list
    }

    /// Builds the DISCONNECT property list: a session expiry of 0 ends the kept session with the
    /// connection (allowed when the CONNECT asked for one); nil sends none.
    static func disconnectProperties(endingSession: Bool) -> OpaquePointer? {
        guard endingSession else { return nil }
        var list: OpaquePointer?
        mosquitto_property_add_int32(&list, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), 0)
        return list
    }

    /// Reads the properties the gateway cares about. `list` is only valid during the callback,
    /// so everything is copied out; strings libmosquitto returns are malloc'd and freed here.
    static func read(_ list: OpaquePointer?) -> MQTTProperties {
        var result = MQTTProperties()
        var current = list
        while let property = current {
            let identifier = mosquitto_property_identifier(property)
            switch identifier {
            case Int32(MQTT_PROP_CONTENT_TYPE.rawValue):
                result.contentType = readString(property, identifier)
            case Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue):
                result.responseTopic = readString(property, identifier)
            case Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue):
                var value: UInt32 = 0
                if mosquitto_property_read_int32(property, identifier, &value, false) != nil {
                    result.messageExpiryInterval = value
                }
            case Int32(MQTT_PROP_CORRELATION_DATA.rawValue):
                var value: UnsafeMutableRawPointer?
                var length: UInt16 = 0
                if mosquitto_property_read_binary(property, identifier, &value, &length, false) != nil {
                    if let value {
                        result.correlationData = Array(UnsafeRawBufferPointer(start: value, count: Int(length)))
                        free(value)
                    } else {
                        result.correlationData = []
                    }
                }
            case Int32(MQTT_PROP_SUBSCRIPTION_IDENTIFIER.rawValue):
                var value: UInt32 = 0
                if mosquitto_property_read_varint(property, identifier, &value, false) != nil {
                    result.subscriptionIdentifiers.append(Int(value))
                }
            case Int32(MQTT_PROP_USER_PROPERTY.rawValue):
                var name: UnsafeMutablePointer<CChar>?
                var value: UnsafeMutablePointer<CChar>?
                if mosquitto_property_read_string_pair(property, identifier, &name, &value, false) != nil {
                    result.userProperties.append(
                        .init(name: name.map { String(cString: $0) } ?? "", value: value.map { String(cString: $0) } ?? ""))
                    free(name)
                    free(value)
                }
            default:
                break
            }
            current = mosquitto_property_next(property)
        }
        return result
    }

    private static func readString(_ property: OpaquePointer, _ identifier: Int32) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard mosquitto_property_read_string(property, identifier, &value, false) != nil, let value else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
