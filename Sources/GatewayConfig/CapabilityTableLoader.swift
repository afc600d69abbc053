import TelemetryCore
import Yams

/// A capability table that passed validation, with the remarks made while loading.
public struct LoadedCapabilityTable: Sendable, Equatable {
    /// The table to resolve capabilities with.
    public var table: CapabilityTable
    /// Non-fatal remarks worth logging, each starting with `file:line`.
    public var warnings: [String]
}

/// Reads the capability table (`config/capabilities.yml`; the format is described at the top of
/// that file and in `docs/access-checks.md`):
///
/// ```yaml
/// rules:
///   - capabilities: [batchedSensors]
///     models: ["Apple Watch Series 8+", "Apple Watch Ultra*"]
///     platforms: {watchOS: "10.0"}
///     why: CMBatchedSensorManager is watchOS 10+ on Series 8 and Ultra (WWDC23).
/// ```
///
/// Every problem is reported, each naming `file:line` and the key path (`rules[3].models[1]`):
/// unknown keys, unknown capability names, bad model patterns, bad versions, missing or empty
/// `capabilities`, `models` or `platforms`.
public enum CapabilityTableLoader {
    /// The top-level keys.
    package static let topLevelKeys = ["rules"]
    /// The keys of one rule.
    package static let ruleKeys = ["capabilities", "models", "platforms", "why"]

    /// Loads and validates a capability table file.
    /// - Parameter file: the YAML file's path (as given, used in messages).
    /// - Returns: the table and warnings.
    /// - Throws: ``ConfigurationError`` listing every problem.
    public static func load(file: String) throws(ConfigurationError) -> LoadedCapabilityTable {
        try parse(yaml: AccessYAML.read(file), source: file)
    }

    /// Parses and validates capability table YAML.
    /// - Parameters:
    ///   - yaml: the file's text.
    ///   - source: the file name used in messages.
    /// - Returns: the table and warnings.
    /// - Throws: ``ConfigurationError`` listing every problem.
    public static func parse(yaml: String, source: String) throws(ConfigurationError) -> LoadedCapabilityTable {
        var reader = AccessYAML(file: source)
        var rules: [CapabilityRule] = []
        if let root = reader.compose(yaml), let entries = reader.mapping(root, key: "(file)", expected: "a mapping with 'rules'") {
            reader.rejectUnknownKeys(entries, allowed: topLevelKeys, prefix: "")
            if let rulesEntry = entries.first(where: { $0.name == "rules" }) {
                if case .sequence(let sequence) = rulesEntry.value {
                    for (index, node) in sequence.enumerated() {
                        if let rule = rule(node, key: "rules[\(index)]", reader: &reader) { rules.append(rule) }
                    }
                } else {
                    reader.issue("rules", at: rulesEntry.value, "expected a list of rules, found \(AccessYAML.kind(rulesEntry.value))")
                }
            } else {
                reader.issue("rules", at: root, "missing: the table needs a 'rules' list")
            }
            let granted = Set(rules.flatMap(\.capabilities))
            for capability in Capability.allCases where !granted.contains(capability) && reader.issues.isEmpty {
                reader.warnings.append("\(source): no rule grants \(capability.rawValue): every frame that needs it fails with notAvailable")
            }
        }
        guard reader.issues.isEmpty else { throw ConfigurationError(issues: reader.issues) }
        return LoadedCapabilityTable(table: CapabilityTable(rules: rules), warnings: reader.warnings)
    }

    private static func rule(_ node: Node, key: String, reader: inout AccessYAML) -> CapabilityRule? {
        guard let fields = reader.mapping(node, key: key, expected: "a rule mapping with capabilities, models and platforms") else { return nil }
        reader.rejectUnknownKeys(fields, allowed: ruleKeys, prefix: key)
        let issuesBefore = reader.issues.count
        var capabilities: Set<Capability> = []
        var models: [ModelPattern] = []
        var platforms: [CapabilityRule.PlatformMinimum] = []
        var why = ""
        for required in ["capabilities", "models", "platforms"] where !fields.contains(where: { $0.name == required }) {
            reader.issue("\(key).\(required)", at: node, "missing")
        }
        for field in fields {
            let path = "\(key).\(field.name)"
            switch field.name {
            case "capabilities":
                let names = Capability.allCases.map(\.rawValue)
                for (index, element) in (reader.scalars(field.value, key: path) ?? []).enumerated() {
                    if let capability = Capability(rawValue: element.text) {
                        capabilities.insert(capability)
                    } else {
                        reader.issue(
                            "\(path)[\(index)]", at: element.node,
                            "unknown capability '\(element.text)'\(AccessYAML.suggestion(for: element.text, among: names)); allowed: \(names.joined(separator: ", "))")
                    }
                }
                if capabilities.isEmpty, AccessYAML.isNull(field.value) || field.value.sequence?.isEmpty == true {
                    reader.issue(path, at: field.value, "must list at least one capability")
                }
            case "models":
                for (index, element) in (reader.scalars(field.value, key: path) ?? []).enumerated() {
                    if let pattern = ModelPattern(element.text) {
                        models.append(pattern)
                    } else {
                        reader.issue("\(path)[\(index)]", at: element.node, ModelPattern.problem(element.text) ?? "invalid model pattern")
                    }
                }
                if models.isEmpty, AccessYAML.isNull(field.value) || field.value.sequence?.isEmpty == true {
                    reader.issue(path, at: field.value, "must list at least one model pattern")
                }
            case "platforms":
                if AccessYAML.isNull(field.value) {
                    reader.issue(path, at: field.value, "must map at least one platform to its minimum OS version, e.g. {watchOS: \"10.0\"}")
                    continue
                }
                guard let entries = reader.mapping(field.value, key: path, expected: "a mapping such as {watchOS: \"10.0\"}") else { continue }
                if entries.isEmpty { reader.issue(path, at: field.value, "must map at least one platform to its minimum OS version") }
                for entry in entries {
                    guard let text = reader.scalar(entry.value, key: "\(path).\(entry.name)") else { continue }
                    if entry.name.isEmpty {
                        reader.issue(path, at: entry.keyNode, "a platform name is empty")
                    } else if let version = OSVersion(text) {
                        platforms.append(.init(platform: entry.name, minimum: version))
                    } else {
                        reader.issue("\(path).\(entry.name)", at: entry.value, "'\(text)' is not a dotted version such as \"10.0\"")
                    }
                }
            case "why":
                why = reader.scalar(field.value, key: path) ?? ""
            default:
                break
            }
        }
        guard reader.issues.count == issuesBefore else { return nil }
        return CapabilityRule(capabilities: capabilities, models: models, platforms: platforms, why: why)
    }
}
