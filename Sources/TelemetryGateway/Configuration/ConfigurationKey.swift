/// One configuration key: its YAML path, documentation and how a textual value is applied.
///
/// Every source (YAML scalar, `WG_*` environment variable, `--set key=value` flag) provides
/// text, so one parser per key validates all of them the same way, and the same table drives
/// unknown-key detection and `wearable-gateway config-keys` (the docs table).
public struct ConfigurationKey: Sendable {
    /// Dotted YAML path, e.g. `mqtt.keepalive`.
    public let path: String
    /// One-line documentation.
    public let summary: String
    /// The default, as text.
    public let defaultValue: String
    /// Applies the text; returns a message saying what is allowed when the text is invalid.
    let apply: @Sendable (inout GatewayConfiguration, String) -> String?

    /// The environment variable that overrides the key: `WG_` + upper snake case of the path.
    public var environmentName: String {
        var name = "WG_"
        var previousWasLower = false
        for character in path {
            if character == "." {
                name.append("_")
                previousWasLower = false
            } else if character.isUppercase {
                if previousWasLower { name.append("_") }
                name.append(character)
                previousWasLower = false
            } else {
                name.append(contentsOf: character.uppercased())
                previousWasLower = character.isLowercase || character.isNumber
            }
        }
        return name
    }
}

extension ConfigurationKey {
    /// An integer in `range`.
    static func integer(
        _ path: String, _ summary: String, default value: Int, in range: ClosedRange<Int>,
        _ set: @escaping @Sendable (inout GatewayConfiguration, Int) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(path: path, summary: summary, defaultValue: "\(value)") { configuration, text in
            guard let parsed = Int(text.trimmingSpaces), range.contains(parsed) else {
                return "must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'"
            }
            set(&configuration, parsed)
            return nil
        }
    }

    /// A number in `range` (seconds, usually).
    static func number(
        _ path: String, _ summary: String, default value: Double, in range: ClosedRange<Double>,
        _ set: @escaping @Sendable (inout GatewayConfiguration, Double) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(path: path, summary: summary, defaultValue: "\(value)") { configuration, text in
            guard let parsed = Double(text.trimmingSpaces), parsed.isFinite, range.contains(parsed) else {
                return "must be a number from \(range.lowerBound) to \(range.upperBound), got '\(text)'"
            }
            set(&configuration, parsed)
            return nil
        }
    }

    /// `true` or `false` (also yes/no, on/off, 1/0).
    static func flag(
        _ path: String, _ summary: String, default value: Bool,
        _ set: @escaping @Sendable (inout GatewayConfiguration, Bool) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(path: path, summary: summary, defaultValue: "\(value)") { configuration, text in
            switch text.trimmingSpaces.lowercased() {
            case "true", "yes", "on", "1": set(&configuration, true)
            case "false", "no", "off", "0": set(&configuration, false)
            default: return "must be true or false, got '\(text)'"
            }
            return nil
        }
    }

    /// A string; `validate` may reject it with a message. `null`/`~`/empty clears optional ones.
    static func text(
        _ path: String, _ summary: String, default value: String?,
        validate: @escaping @Sendable (String) -> String? = { _ in nil },
        _ set: @escaping @Sendable (inout GatewayConfiguration, String?) -> Void
    ) -> ConfigurationKey {
        ConfigurationKey(path: path, summary: summary, defaultValue: value ?? "(none)") { configuration, text in
            let trimmed = text.trimmingSpaces
            if ["", "~", "null"].contains(trimmed) {
                set(&configuration, nil)
                return nil
            }
            if let problem = validate(trimmed) { return problem }
            set(&configuration, trimmed)
            return nil
        }
    }

    /// A comma-separated set of names (spaces around each ignored); `null`/`~`/empty is the empty set.
    static func names(
        _ path: String, _ summary: String, default value: [String],
        _ set: @escaping @Sendable (inout GatewayConfiguration, Set<String>) -> Void
    ) -> ConfigurationKey {
        text(path, summary, default: value.joined(separator: ",")) { configuration, text in
            set(&configuration, Set((text ?? "").split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }))
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
