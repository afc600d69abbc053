/// The top-level members a decoder asks the C decoder to report, always starting with the
/// contract's optional `sequence`. Create one per payload shape, once (`static let`).
struct JSONMemberKeys: Sendable {
    /// The keys, `sequence` first.
    let names: [String]
    /// The keys as the C decoder takes them: each followed by NUL, back to back.
    let packed: String

    /// The keys `sequence` plus `names`.
    /// - Parameter names: the shape's top-level members, e.g. `"date"`, `"state"`.
    init(_ names: String...) {
        self.names = ["sequence"] + names
        packed = self.names.map { $0 + "\0" }.joined()
    }

    /// The position of `name` in ``names``; traps when the decoder reads a key it did not ask for
    /// (a programmer error that every stream's fixture test would hit).
    func index(of name: String) -> Int {
        guard let index = names.firstIndex(of: name) else { preconditionFailure("member '\(name)' was not requested") }
        return index
    }
}
