import CSimdjson

/// Checks that payloads are well-formed JSON objects, with simdjson.
public enum JSONValidator {
    /// Says why `bytes` is not one well-formed JSON document with an object at the top level.
    /// - Parameter bytes: the payload, UTF-8.
    /// - Returns: nil when it is a JSON object, else simdjson's description of the problem
    ///   (e.g. `empty payload`, `top-level JSON value is not an object`).
    public static func objectProblem(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { objectProblem(UnsafeRawBufferPointer($0)) }
    }

    /// Says why the bytes are not one well-formed JSON document with an object at the top level.
    /// - Parameter bytes: the payload, UTF-8; only read during the call.
    /// - Returns: nil when it is a JSON object, else simdjson's description of the problem.
    public static func objectProblem(_ bytes: UnsafeRawBufferPointer) -> String? {
        var message: UnsafePointer<CChar>?
        let status = wg_json_validate_object(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &message)
        if status == WG_JSON_OK { return nil }
        guard let message else { return "invalid JSON" }
        return String(cString: message)
    }
}
