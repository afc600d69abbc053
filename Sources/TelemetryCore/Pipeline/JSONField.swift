import CSimdjson

/// Reads single top-level members of a small JSON object (simdjson-backed), for rare tiny payloads
/// such as `status` where a full decoder would be overkill. Each lookup parses the document again.
enum JSONField {
    /// The outcome of looking up one member.
    enum Lookup<Value: Sendable & Equatable>: Sendable, Equatable {
        /// The member exists with the expected type.
        case value(Value)
        /// The object has no member with that key.
        case missing
        /// The member has another JSON type.
        case wrongType
        /// The document is not a well-formed JSON object.
        case notObject
    }

    /// Looks up a string member; a longer string is cut to `maxBytes` bytes (invalid UTF-8 at the cut is repaired).
    static func string(_ key: String, in bytes: [UInt8], maxBytes: Int = 256) -> Lookup<String> {
        bytes.withUnsafeBufferPointer { data in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxBytes) { buffer in
                var length = 0
                let status = wg_json_get_string(data.baseAddress, data.count, key, buffer.baseAddress, buffer.count, &length)
                switch status {
                case WG_JSON_FIELD_OK, WG_JSON_FIELD_TRUNCATED:
                    return .value(String(decoding: UnsafeBufferPointer(rebasing: buffer[..<min(length, buffer.count)]), as: UTF8.self))
                default:
                    return lookup(status)
                }
            }
        }
    }

    /// Looks up a number member (integer or floating point) as a `Double`.
    static func double(_ key: String, in bytes: [UInt8]) -> Lookup<Double> {
        bytes.withUnsafeBufferPointer { data in
            var value = 0.0
            let status = wg_json_get_double(data.baseAddress, data.count, key, &value)
            return status == WG_JSON_FIELD_OK ? .value(value) : lookup(status)
        }
    }

    private static func lookup<Value>(_ status: wg_json_field_status) -> Lookup<Value> {
        switch status {
        case WG_JSON_FIELD_MISSING: .missing
        case WG_JSON_FIELD_WRONG_TYPE: .wrongType
        default: .notObject
        }
    }
}
