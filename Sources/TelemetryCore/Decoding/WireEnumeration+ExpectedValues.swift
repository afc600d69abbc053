extension WireEnumeration {
    /// The case names for problem reports: `online, offline`.
    static var expectedNames: String { allCases.map(\.name).joined(separator: ", ") }
}

extension WireEnumeration where Self: RawRepresentable, RawValue: FixedWidthInteger {
    /// The case names and raw values for problem reports: `unknown (0), notSubmerged (1), submerged (2)`.
    static var expectedNamesAndRawValues: String {
        allCases.map { "\($0.name) (\($0.rawValue))" }.joined(separator: ", ")
    }
}
