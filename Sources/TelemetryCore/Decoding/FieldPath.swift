/// The path of a payload member in a problem report: `date`, `samples[3].attitude`,
/// `samples[12].magneticField.accuracy`.
///
/// Cheap to create (its parts are literals and an index): the text is only built when a problem
/// is reported, so per-sample decoding and validation can carry one for every value they check.
struct FieldPath: Sendable, Equatable, CustomStringConvertible {
    /// The element index in the payload's `samples` array, or nil for a top-level member.
    var sample: Int?
    /// The object member that holds ``member`` (e.g. `magneticField`), if nested.
    var object: String?
    /// The member itself; empty for the sample as a whole.
    var member: String

    /// A top-level member.
    init(_ member: String) {
        self.member = member
    }

    /// A member of sample `sample`, optionally inside object `object`.
    init(sample: Int, object: String? = nil, _ member: String) {
        self.sample = sample
        self.object = object
        self.member = member
    }

    /// The same path one level deeper, e.g. `samples[3].attitude` → `samples[3].attitude.x`.
    func appending(_ component: String) -> FieldPath {
        var path = self
        path.object = path.object.map { "\($0).\(member)" } ?? (member.isEmpty ? nil : member)
        path.member = component
        return path
    }

    /// The path as text, e.g. `samples[3].magneticField.accuracy`.
    var description: String {
        var parts: [String] = []
        if let sample { parts.append("samples[\(sample)]") }
        if let object { parts.append(object) }
        if !member.isEmpty { parts.append(member) }
        return parts.joined(separator: ".")
    }
}
