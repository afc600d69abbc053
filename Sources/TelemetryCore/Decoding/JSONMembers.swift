import CSimdjson

/// The top-level members one C decode call reported, plus the call's string storage (which the
/// per-sample scalars of the high-rate decoders also index).
///
/// ``decode(_:keys:call:)`` runs one C decoder: it supplies the key list, the result slots, the
/// string storage and the problem report, and turns a failure into a ``PayloadProblem``.
struct JSONMembers {
    /// The keys that were requested.
    let keys: JSONMemberKeys
    /// What was found, in the order of `keys.names`.
    let values: [wg_json_scalar]
    /// Unescaped strings of the call, indexed by every reported string scalar.
    let strings: [UInt8]

    /// The member `name`, which must be one of the requested keys.
    subscript(name: String) -> JSONScalar {
        JSONScalar(values[keys.index(of: name)], strings: strings, path: FieldPath(name))
    }

    /// The contract's optional `sequence` (UInt64).
    func sequence() throws(PayloadProblem) -> UInt64? {
        try self["sequence"].optionalUnsignedInteger()
    }

    /// The signature shared by the C decoders once their sample buffer is bound: payload, length,
    /// members, problem.
    typealias Call = (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<wg_json_members>, UnsafeMutablePointer<wg_decode_problem>
    ) -> wg_decode_status

    /// Runs one C decoder over `payload` and returns the requested members.
    /// - Parameters:
    ///   - text: the JSON text (and how far past it may be read); only read during the call.
    ///   - keys: the top-level members to report.
    ///   - call: the C decoder, given the payload, its length, the members and the problem report.
    /// - Throws: the C decoder's problem, converted.
    static func decode(_ text: JSONText, keys: JSONMemberKeys, call: Call) throws(PayloadProblem) -> JSONMembers {
        let payload = text.bytes
        var values = [wg_json_scalar](repeating: wg_json_scalar(), count: keys.names.count)
        var problem = wg_decode_problem()
        var status = WG_DECODE_OK
        // A string is never longer than its JSON text, so the payload's length always suffices.
        // At least one byte: with no capacity the initializer stores its count in the shared
        // empty array, a write other threads race with (ThreadSanitizer).
        let strings = [UInt8](unsafeUninitializedCapacity: Swift.max(payload.count, 1)) { buffer, used in
            keys.packed.withCString { packedKeys in
                values.withUnsafeMutableBufferPointer { values in
                    var members = wg_json_members(
                        keys: packedKeys, count: values.count, values: values.baseAddress,
                        strings: buffer.baseAddress, string_capacity: buffer.count, string_length: 0, input_readable: text.readable
                    )
                    status = call(payload.baseAddress?.assumingMemoryBound(to: UInt8.self), payload.count, &members, &problem)
                    used = members.string_length
                }
            }
        }
        guard status == WG_DECODE_OK else { throw PayloadProblem(status, problem) }
        return JSONMembers(keys: keys, values: values, strings: strings)
    }
}
