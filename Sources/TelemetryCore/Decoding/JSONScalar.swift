import CSimdjson

/// One member as the C decoder reported it (its JSON type and value), read with the contract's
/// rules. Every stream's members go through these readers, so the rules live in one place:
///
/// - A required member that is absent is `missing`; `null` is the wrong type. An optional member
///   that is absent or `null` is `nil`.
/// - Numbers (`Double`) are any JSON number.
/// - Integers are a JSON integer or an integral number (`3.0`) that fits the type.
/// - Enumerations are the Core Motion case name, or (where the type has an integer raw value) the
///   raw integer: `"submergedDeep"` or `300`.
struct JSONScalar {
    /// What the C decoder found.
    private let raw: wg_json_scalar
    /// The call's string storage, which `raw` indexes for strings.
    private let strings: [UInt8]
    /// Where the member is, for problem reports.
    let path: FieldPath

    /// Wraps a member reported by the C decoder.
    /// - Parameters:
    ///   - raw: the reported type and value.
    ///   - strings: the string storage of the same call.
    ///   - path: the member's path.
    init(_ raw: wg_json_scalar, strings: [UInt8], path: FieldPath) {
        self.raw = raw
        self.strings = strings
        self.path = path
    }

    // MARK: Numbers

    /// A required number.
    func number() throws(PayloadProblem) -> Double {
        try required("not a number") { () throws(PayloadProblem) in try optionalNumber() }
    }

    /// An optional number.
    func optionalNumber() throws(PayloadProblem) -> Double? {
        switch raw.type {
        case WG_JSON_ABSENT, WG_JSON_NULL: return nil
        case WG_JSON_INT64, WG_JSON_UINT64, WG_JSON_DOUBLE: return raw.number
        default: throw problem(.wrongType, "not a number")
        }
    }

    // MARK: Integers

    /// A required signed integer.
    func integer() throws(PayloadProblem) -> Int {
        try required("not an integer") { () throws(PayloadProblem) in try optionalInteger() }
    }

    /// An optional signed integer.
    func optionalInteger() throws(PayloadProblem) -> Int? {
        guard let value = try optionalInt64(expecting: "an integer") else { return nil }
        guard let integer = Int(exactly: value) else { throw problem(.notRepresentable, "\(value) does not fit an integer") }
        return integer
    }

    /// An optional unsigned 64-bit integer (the contract's `sequence` and `identifier`).
    func optionalUnsignedInteger() throws(PayloadProblem) -> UInt64? {
        switch raw.type {
        case WG_JSON_ABSENT, WG_JSON_NULL: return nil
        case WG_JSON_UINT64: return raw.uint64
        case WG_JSON_INT64:
            guard raw.int64 >= 0 else { throw problem(.notRepresentable, "\(raw.int64) is negative; expected an unsigned integer") }
            return UInt64(raw.int64)
        case WG_JSON_DOUBLE:
            guard let value = UInt64(exactly: raw.number) else {
                throw problem(.notRepresentable, "\(raw.number) is not an unsigned integer")
            }
            return value
        default: throw problem(.wrongType, "not an unsigned integer")
        }
    }

    /// A required unsigned 64-bit integer.
    func unsignedInteger() throws(PayloadProblem) -> UInt64 {
        try required("not an unsigned integer") { () throws(PayloadProblem) in try optionalUnsignedInteger() }
    }

    // MARK: Strings

    /// A required string.
    func string() throws(PayloadProblem) -> String {
        try required("not a string") { () throws(PayloadProblem) in try optionalString() }
    }

    /// An optional string.
    func optionalString() throws(PayloadProblem) -> String? {
        switch raw.type {
        case WG_JSON_ABSENT, WG_JSON_NULL: nil
        case WG_JSON_STRING: String(decoding: text, as: UTF8.self)
        default: throw problem(.wrongType, "not a string")
        }
    }

    // MARK: Enumerations

    /// A required enumeration written as its case name.
    func enumeration<Value: WireEnumeration>(_ type: Value.Type) throws(PayloadProblem) -> Value {
        try required("not a string") { () throws(PayloadProblem) in try optionalEnumeration(type) }
    }

    /// An optional enumeration written as its case name.
    func optionalEnumeration<Value: WireEnumeration>(_ type: Value.Type) throws(PayloadProblem) -> Value? {
        switch raw.type {
        case WG_JSON_ABSENT, WG_JSON_NULL: return nil
        case WG_JSON_STRING: return try named(type, expected: Value.expectedNames)
        default: throw problem(.wrongType, "not a string")
        }
    }

    /// A required enumeration written as its case name or its raw integer.
    func enumeration<Value: WireEnumeration & RawRepresentable>(
        _ type: Value.Type
    ) throws(PayloadProblem) -> Value where Value.RawValue: FixedWidthInteger {
        try required("not a case name or raw integer") { () throws(PayloadProblem) in try optionalEnumeration(type) }
    }

    /// An optional enumeration written as its case name or its raw integer.
    func optionalEnumeration<Value: WireEnumeration & RawRepresentable>(
        _ type: Value.Type
    ) throws(PayloadProblem) -> Value? where Value.RawValue: FixedWidthInteger {
        switch raw.type {
        case WG_JSON_ABSENT, WG_JSON_NULL:
            return nil
        case WG_JSON_STRING:
            return try named(type, expected: Value.expectedNamesAndRawValues)
        case WG_JSON_INT64:
            return try numbered(type, Value.RawValue(exactly: raw.int64), shown: "\(raw.int64)")
        case WG_JSON_UINT64:
            return try numbered(type, Value.RawValue(exactly: raw.uint64), shown: "\(raw.uint64)")
        case WG_JSON_DOUBLE:
            return try numbered(type, Value.RawValue(exactly: raw.number), shown: "\(raw.number)")
        default:
            throw problem(.wrongType, "not a case name or raw integer")
        }
    }

    // MARK: Private

    /// The string's unescaped UTF-8 bytes.
    private var text: ArraySlice<UInt8> {
        let start = Int(raw.string_offset)
        return strings[start..<start + Int(raw.string_length)]
    }

    /// The case named by the string; `expected` lists the accepted values for the problem report.
    private func named<Value: WireEnumeration>(_ type: Value.Type, expected: @autoclosure () -> String) throws(PayloadProblem) -> Value {
        let text = self.text
        // Runs per sample (a device motion batch's `sensorLocation`): lengths first, then the bytes
        // compared in place; a generic `elementsEqual` of the two views was ≈ 1 % of the gateway's
        // CPU on full-precision JSON.
        let match = text.withUnsafeBufferPointer { bytes in
            Value.allCases.first { candidate in
                var name = candidate.name
                return name.utf8.count == bytes.count && name.withUTF8 { $0.elementsEqual(bytes) }
            }
        }
        if let value = match { return value }
        let shown = TopicScheme.bounded(String(decoding: text, as: UTF8.self), maxScalars: 64)
        throw problem(.unknownValue, "unknown value '\(shown)'; expected one of \(expected())")
    }

    private func numbered<Value: WireEnumeration & RawRepresentable>(
        _ type: Value.Type,
        _ rawValue: Value.RawValue?,
        shown: @autoclosure () -> String
    ) throws(PayloadProblem) -> Value where Value.RawValue: FixedWidthInteger {
        if let rawValue, let value = Value(rawValue: rawValue) { return value }
        throw problem(.unknownValue, "unknown value \(shown()); expected one of \(Value.expectedNamesAndRawValues)")
    }

    private func optionalInt64(expecting expectation: String) throws(PayloadProblem) -> Int64? {
        switch raw.type {
        case WG_JSON_ABSENT, WG_JSON_NULL: return nil
        case WG_JSON_INT64: return raw.int64
        case WG_JSON_UINT64: throw problem(.notRepresentable, "\(raw.uint64) is too large for \(expectation)")
        case WG_JSON_DOUBLE:
            guard let value = Int64(exactly: raw.number) else { throw problem(.notRepresentable, "\(raw.number) is not \(expectation)") }
            return value
        default: throw problem(.wrongType, "not \(expectation)")
        }
    }

    /// Runs `read` and turns its `nil` into `missing` (absent) or `wrongType` (null).
    private func required<Value>(_ wrongType: String, _ read: () throws(PayloadProblem) -> Value?) throws(PayloadProblem) -> Value {
        if let value = try read() { return value }
        throw raw.type == WG_JSON_ABSENT ? problem(.missingField, "missing") : problem(.wrongType, wrongType)
    }

    private func problem(_ reason: PayloadProblem.Reason, _ message: String) -> PayloadProblem {
        PayloadProblem(reason, field: path.description, message: message)
    }
}
