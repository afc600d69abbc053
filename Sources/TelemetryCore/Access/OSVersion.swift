/// A dotted operating-system version such as `10.1` or `9.6.2`, compared numerically component by
/// component (`10.1` > `9.6.2`), with missing components counting as 0 (`10` == `10.0.0`).
public struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The most components accepted (`major.minor.patch.build`).
    public static let maxComponents = 4
    /// The most digits accepted per component, so every component fits an `Int`.
    public static let maxDigits = 9

    /// The components with trailing zeros removed (`10.0` → `[10]`), so equal versions compare equal.
    public let components: [Int]
    /// The text as written.
    public let text: String

    /// Parses `text`: 1 to ``maxComponents`` dot-separated runs of ASCII digits, nothing else
    /// (no spaces, suffixes such as `beta`, or empty components).
    /// - Parameter text: the version, e.g. `"10.1"`.
    /// - Returns: nil when `text` is not such a version.
    public init?(_ text: some StringProtocol) {
        var parsed: [Int] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.utf8.count <= Self.maxDigits,
                part.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = Int(part)
            else { return nil }
            parsed.append(value)
        }
        guard (1...Self.maxComponents).contains(parsed.count) else { return nil }
        while parsed.count > 1, parsed.last == 0 { parsed.removeLast() }
        components = parsed
        self.text = String(text)
    }

    /// The text as written.
    public var description: String { text }

    /// Numeric comparison, component by component; a missing component counts as 0.
    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    /// Equal when the numbers are equal (`10` == `10.0`), whatever the text.
    public static func == (lhs: OSVersion, rhs: OSVersion) -> Bool { lhs.components == rhs.components }

    /// Hashes the numbers only, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) { hasher.combine(components) }
}
