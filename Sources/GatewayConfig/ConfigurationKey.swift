/// One configuration key: its YAML path, documentation, the property it sets and the rules its
/// value must follow.
///
/// A key is declared once, next to the configuration type that holds its property (e.g.
/// `GatewayConfiguration.MQTT.keys`); ``GatewayConfiguration/keys`` concatenates them. The key
/// has no default of its own: ``defaultValue`` describes the property of a fresh
/// ``GatewayConfiguration``, so the documented default is the one the gateway runs with.
///
/// Every source (YAML scalar, `WG_*` environment variable, `--set key=value` flag) provides
/// text, so one parser per key validates all of them the same way, and the same table drives
/// unknown-key detection, the final checks and `wearable-gateway config-keys` (the docs table).
public struct ConfigurationKey: Sendable {
    /// A check of the configured value against other keys: what is wrong, or nil.
    package typealias Check = @Sendable (GatewayConfiguration) -> String?
    /// The property of ``GatewayConfiguration`` a key sets.
    package typealias Property<Value> = any WritableKeyPath<GatewayConfiguration, Value> & Sendable

    /// Dotted YAML path, e.g. `mqtt.keepalive`.
    public let path: String
    /// One-line documentation.
    public let summary: String
    /// The default, as text: the property's value in `GatewayConfiguration()`.
    public let defaultValue: String
    /// The value of the key's property in a configuration, as text (``defaultValue``'s form).
    package let describe: @Sendable (GatewayConfiguration) -> String
    /// Applies the text; returns a message saying what is allowed when the text is invalid.
    package let apply: @Sendable (inout GatewayConfiguration, String) -> String?
    /// Rules that span keys, checked once every source is applied; a failed one is reported
    /// under this key (the key to change).
    package let checks: [Check]

    /// A key setting `property`: `parse` turns the (trimmed) text into a value or says what is
    /// allowed, `describe` writes a value back as text.
    package init<Value>(
        _ path: String, _ summary: String, _ property: Property<Value>,
        describe: @escaping @Sendable (Value) -> String, parse: @escaping @Sendable (String) -> Parsed<Value>
    ) {
        self.path = path
        self.summary = summary
        self.describe = { describe($0[keyPath: property]) }
        self.defaultValue = describe(GatewayConfiguration()[keyPath: property])
        self.apply = { configuration, text in
            switch parse(text.trimmingSpaces) {
            case .value(let value):
                configuration[keyPath: property] = value
                return nil
            case .invalid(let message):
                return message
            }
        }
        self.checks = []
    }

    private init(copying key: ConfigurationKey, checks: [Check]) {
        path = key.path
        summary = key.summary
        defaultValue = key.defaultValue
        describe = key.describe
        apply = key.apply
        self.checks = checks
    }

    /// This key with one more rule; when `check` returns a message, it is reported under this key.
    package func checked(_ check: @escaping Check) -> ConfigurationKey {
        ConfigurationKey(copying: self, checks: checks + [check])
    }

    /// The problems of this key's value in `configuration`, by its checks.
    package func issues(in configuration: GatewayConfiguration) -> [ConfigurationIssue] {
        checks.compactMap { check in check(configuration).map { ConfigurationIssue(key: path, source: "configuration", message: $0) } }
    }

    /// The environment variable that overrides the key: `WG_` + upper snake case of the path.
    public var environmentName: String { Self.environmentName(of: path) }

    /// The environment variable of the key at `path`: `WG_` + upper snake case of the path.
    package static func environmentName(of path: String) -> String {
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

/// A value parsed from a key's text, or what is allowed instead.
package enum Parsed<Value> {
    case value(Value)
    case invalid(String)
}

extension ConfigurationKey {
    /// Whether the text clears an optional key (`null`, `~` or nothing).
    package static func isNull(_ text: String) -> Bool { ["", "~", "null"].contains(text) }

    /// A whole number in `range`.
    package static func integer<Value: FixedWidthInteger & Sendable>(
        _ path: String, _ summary: String, in range: ClosedRange<Int>, _ property: Property<Value>
    ) -> ConfigurationKey {
        ConfigurationKey(path, summary, property, describe: { "\($0)" }) { text in
            guard let parsed = Int(text), range.contains(parsed), let value = Value(exactly: parsed) else {
                return .invalid("must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
            }
            return .value(value)
        }
    }

    /// A finite number in `range` (seconds, usually).
    package static func number(
        _ path: String, _ summary: String, in range: ClosedRange<Double>, _ property: Property<Double>
    ) -> ConfigurationKey {
        ConfigurationKey(path, summary, property, describe: { "\($0)" }) { text in
            guard let parsed = Double(text), parsed.isFinite, range.contains(parsed) else {
                return .invalid("must be a number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
            }
            return .value(parsed)
        }
    }

    /// `true` or `false` (also yes/no, on/off, 1/0).
    package static func flag(_ path: String, _ summary: String, _ property: Property<Bool>) -> ConfigurationKey {
        ConfigurationKey(path, summary, property, describe: { "\($0)" }) { text in
            switch text.lowercased() {
            case "true", "yes", "on", "1": .value(true)
            case "false", "no", "off", "0": .value(false)
            default: .invalid("must be true or false, got '\(text)'")
            }
        }
    }

    /// A string that must be set; `validate` may reject it with a message. `null`/`~`/empty
    /// restores the default.
    package static func text(
        _ path: String, _ summary: String, validate: @escaping @Sendable (String) -> String? = { _ in nil },
        _ property: Property<String>
    ) -> ConfigurationKey {
        let fallback = GatewayConfiguration()[keyPath: property]
        return ConfigurationKey(path, summary, property, describe: { $0 }) { text in
            if isNull(text) { return .value(fallback) }
            return validate(text).map { .invalid($0) } ?? .value(text)
        }
    }

    /// An optional string; `validate` may reject it with a message. `null`/`~`/empty clears it;
    /// `none` is how an unset value is documented.
    package static func optionalText(
        _ path: String, _ summary: String, none: String = "(none)", validate: @escaping @Sendable (String) -> String? = { _ in nil },
        _ property: Property<String?>
    ) -> ConfigurationKey {
        ConfigurationKey(path, summary, property, describe: { $0 ?? none }) { text in
            if isNull(text) { return .value(nil) }
            return validate(text).map { .invalid($0) } ?? .value(text)
        }
    }

    /// A value parsed from text by `parse`; `null`/`~`/empty restores the default.
    package static func parsed<Value: Sendable>(
        _ path: String, _ summary: String, _ property: Property<Value>,
        describe: @escaping @Sendable (Value) -> String, parse: @escaping @Sendable (String) -> Parsed<Value>
    ) -> ConfigurationKey {
        let fallback = GatewayConfiguration()[keyPath: property]
        return ConfigurationKey(path, summary, property, describe: describe) { text in isNull(text) ? .value(fallback) : parse(text) }
    }

    /// One of the raw values of `Choice` (any letter case); `null`/`~`/empty restores the default.
    package static func choice<Choice: RawRepresentable<String> & CaseIterable & Sendable>(
        _ path: String, _ summary: String, _ property: Property<Choice>
    ) -> ConfigurationKey {
        let names = Choice.allCases.map(\.rawValue)
        // Short lists read as a sentence ("text or json"), long ones as a list.
        let allowed = names.count > 3 ? "one of " + names.joined(separator: ", ") : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
        return parsed(path, summary, property, describe: \.rawValue) { text in
            Choice(rawValue: text.lowercased()).map { .value($0) } ?? .invalid("must be \(allowed), got '\(text)'")
        }
    }

    /// A comma-separated set of names (spaces around each ignored); `null`/`~`/empty is the
    /// empty set. Documented sorted.
    package static func names(_ path: String, _ summary: String, _ property: Property<Set<String>>) -> ConfigurationKey {
        ConfigurationKey(path, summary, property, describe: { $0.sorted().joined(separator: ",") }) { text in
            isNull(text) ? .value([]) : .value(Set(text.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }))
        }
    }
}

extension String {
    package var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
