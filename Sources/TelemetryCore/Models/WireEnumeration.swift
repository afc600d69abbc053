/// An enumeration that travels on the wire as its Core Motion case name.
///
/// The wire contract writes every enum as a string holding the Core Motion case name
/// (`"submergedDeep"`). Conforming types list their cases in `allCases` and spell each
/// name once in ``name``; ``init(wireValue:)`` is the inverse lookup.
public protocol WireEnumeration: CaseIterable, Hashable, Sendable {
    /// The Core Motion case name written on the wire, for example `"submergedDeep"`.
    var name: String { get }
}

extension WireEnumeration {
    /// Creates the case whose ``name`` equals `wireValue` exactly (case-sensitive).
    /// - Parameter wireValue: a Core Motion case name such as `"headphoneLeft"`.
    /// - Returns: `nil` when no case has that name.
    public init?(wireValue: String) {
        guard let match = Self.allCases.first(where: { $0.name == wireValue }) else { return nil }
        self = match
    }
}
