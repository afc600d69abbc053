/// Which device models a capability rule covers, written as text in `config/capabilities.yml`.
///
/// Three forms, all case-sensitive:
/// - `Apple Watch SE` — exactly that model;
/// - `AirPods Pro*` — every model starting with `AirPods Pro` (a family: `AirPods Pro`,
///   `AirPods Pro (2nd generation)`, …); the `*` may only end the pattern;
/// - `Apple Watch Series 8+` — the family name, a space, then a generation number of at least 8,
///   optionally followed by a space and more (`Apple Watch Series 10`, `iPhone 15 Pro` for `iPhone 8+`),
///   so `Series 1` never matches `Series 10` by accident.
public enum ModelPattern: Sendable, Hashable, CustomStringConvertible {
    /// Exactly this model name.
    case exact(String)
    /// Every model whose name starts with this text.
    case prefix(String)
    /// `family` + space + a number ≥ `minimum` + (end, or a space and anything).
    case generation(family: String, minimum: Int)

    /// Parses the pattern syntax described on the type.
    /// - Parameter text: e.g. `"Apple Watch Series 8+"`.
    /// - Returns: nil when the text is empty, is only `*`, has a `*` elsewhere than at the end, or
    ///   has leading or trailing spaces; ``problem(_:)`` says which.
    public init?(_ text: String) {
        guard Self.problem(text) == nil else { return nil }
        if text.hasSuffix("*") {
            self = .prefix(String(text.dropLast()))
        } else if let generation = Self.splitGeneration(text) {
            self = .generation(family: generation.family, minimum: generation.minimum)
        } else {
            self = .exact(text)
        }
    }

    /// Says why `text` is not a pattern.
    /// - Parameter text: the candidate pattern.
    /// - Returns: nil when valid, else a human-readable reason.
    public static func problem(_ text: String) -> String? {
        if text.isEmpty || text == "*" { return "a model pattern needs a model name" }
        if text.first == " " || text.last == " " { return "a model pattern must not start or end with a space" }
        if text.dropLast().contains("*") { return "'*' may only end a model pattern" }
        if text.hasSuffix("+"), splitGeneration(text) == nil, !text.hasSuffix("*") {
            return "'+' must follow a generation number after a space, as in 'Apple Watch Series 8+'"
        }
        return nil
    }

    /// Whether `model` is covered.
    /// - Parameter model: the `hello`'s model, e.g. `"Apple Watch Ultra 2"`.
    /// - Returns: true when the pattern covers it.
    public func matches(_ model: String) -> Bool {
        switch self {
        case .exact(let name):
            return model == name
        case .prefix(let start):
            return model.hasPrefix(start)
        case .generation(let family, let minimum):
            guard model.hasPrefix(family + " ") else { return false }
            let rest = model.dropFirst(family.count + 1)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= OSVersion.maxDigits, let number = Int(digits) else { return false }
            let tail = rest.dropFirst(digits.count)
            return number >= minimum && (tail.isEmpty || tail.first == " ")
        }
    }

    /// The pattern in its file syntax.
    public var description: String {
        switch self {
        case .exact(let name): name
        case .prefix(let start): start + "*"
        case .generation(let family, let minimum): "\(family) \(minimum)+"
        }
    }

    /// The pattern in words, for denial details: `Apple Watch Series 8 or later`, `any AirPods Pro`.
    public var readable: String {
        switch self {
        case .exact(let name): name
        case .prefix(let start): "any " + start
        case .generation(let family, let minimum): "\(family) \(minimum) or later"
        }
    }

    /// `"Apple Watch Series 8+"` → (`"Apple Watch Series"`, 8).
    private static func splitGeneration(_ text: String) -> (family: String, minimum: Int)? {
        guard text.hasSuffix("+"), let space = text.lastIndex(of: " ") else { return nil }
        let family = text[..<space]
        let number = text[text.index(after: space)...].dropLast()
        guard !family.isEmpty, !number.isEmpty, number.count <= OSVersion.maxDigits,
            number.allSatisfy({ $0.isASCII && $0.isNumber }), let minimum = Int(number)
        else { return nil }
        return (String(family), minimum)
    }
}
