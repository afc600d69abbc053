/// A value with a JSON object form in the wire contract that nests inside payloads
/// (vectors, quaternions, samples).
public protocol ContractJSONWritable: Sendable {
    /// Appends this value as one JSON object, with the contract's field names.
    /// - Parameter writer: the writer to append to.
    func write(to writer: inout JSONWriter)
}
