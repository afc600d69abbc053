import TelemetryCore
import Yams

/// A device registry that passed validation, with the remarks made while loading.
public struct LoadedRegistry: Sendable, Equatable {
    /// The registry to enforce.
    public var registry: DeviceRegistry
    /// Non-fatal remarks worth logging, each starting with `file:line`.
    public var warnings: [String]
}

/// Reads the operator's device registry (`config/devices.yml`, wire contract "Device registry"):
///
/// ```yaml
/// open: false                 # true: unlisted devices get defaultEntitlements
/// defaultEntitlements: []
/// devices:
///   watch-ultra-1:
///     entitlements: [submersion.shallow, motion.batched, motion.device, pedometer, altimeter]
/// ```
///
/// Every problem is reported, each naming `file:line` and the key path
/// (`devices.watch-1.entitlements[2]`): unknown keys, a non-boolean `open`, invalid device ids,
/// unknown entitlement names (with a suggestion), wrong shapes, duplicate keys, an empty file.
public enum DeviceRegistryLoader {
    /// The top-level keys.
    package static let topLevelKeys = ["open", "defaultEntitlements", "devices"]
    /// The keys of one device.
    package static let deviceKeys = ["entitlements"]

    /// Loads and validates a registry file.
    /// - Parameter file: the YAML file's path (as given, used in messages).
    /// - Returns: the registry and warnings.
    /// - Throws: ``ConfigurationError`` listing every problem.
    public static func load(file: String) throws(ConfigurationError) -> LoadedRegistry {
        try parse(yaml: AccessYAML.read(file), source: file)
    }

    /// Parses and validates registry YAML.
    /// - Parameters:
    ///   - yaml: the file's text.
    ///   - source: the file name used in messages.
    /// - Returns: the registry and warnings.
    /// - Throws: ``ConfigurationError`` listing every problem.
    public static func parse(yaml: String, source: String) throws(ConfigurationError) -> LoadedRegistry {
        var reader = AccessYAML(file: source)
        var registry = DeviceRegistry()
        if let root = reader.compose(yaml), let entries = reader.mapping(root, key: "(file)", expected: "a mapping with open, defaultEntitlements and devices") {
            reader.rejectUnknownKeys(entries, allowed: topLevelKeys, prefix: "")
            var defaultsNode: Node?
            for entry in entries {
                switch entry.name {
                case "open":
                    if let text = reader.scalar(entry.value, key: "open") {
                        switch text {
                        case "true": registry.isOpen = true
                        case "false": registry.isOpen = false
                        default: reader.issue("open", at: entry.value, "must be true or false, got '\(text)'")
                        }
                    }
                case "defaultEntitlements":
                    defaultsNode = entry.value
                    registry.defaultEntitlements = entitlements(entry.value, key: "defaultEntitlements", reader: &reader)
                case "devices":
                    registry.devices = devices(entry.value, reader: &reader)
                default:
                    break
                }
            }
            if !registry.isOpen, !registry.defaultEntitlements.isEmpty, let defaultsNode {
                reader.warn("defaultEntitlements", at: defaultsNode, "has no effect while the registry is closed (open: false)")
            }
        }
        guard reader.issues.isEmpty else { throw ConfigurationError(issues: reader.issues) }
        return LoadedRegistry(registry: registry, warnings: reader.warnings)
    }

    private static func devices(_ node: Node, reader: inout AccessYAML) -> [DeviceID: Set<Entitlement>] {
        if AccessYAML.isNull(node) { return [:] }
        guard let entries = reader.mapping(node, key: "devices", expected: "a mapping of device ids") else { return [:] }
        var devices: [DeviceID: Set<Entitlement>] = [:]
        for entry in entries {
            let path = "devices.\(entry.name)"
            guard let id = DeviceID(entry.name) else {
                reader.issue(path, at: entry.keyNode, DeviceID.validationProblem(entry.name) ?? "invalid device id")
                continue
            }
            if AccessYAML.isNull(entry.value) {
                reader.warn(path, at: entry.keyNode, "lists no entitlements: the device may only send hello, status, authorization and workout")
                devices[id] = []
                continue
            }
            guard let fields = reader.mapping(entry.value, key: path, expected: "a mapping with 'entitlements'") else { continue }
            reader.rejectUnknownKeys(fields, allowed: deviceKeys, prefix: path)
            var granted: Set<Entitlement> = []
            for field in fields where field.name == "entitlements" {
                granted = entitlements(field.value, key: "\(path).entitlements", reader: &reader)
            }
            devices[id] = granted
        }
        return devices
    }

    private static func entitlements(_ node: Node, key: String, reader: inout AccessYAML) -> Set<Entitlement> {
        guard let elements = reader.scalars(node, key: key) else { return [] }
        var result: Set<Entitlement> = []
        let names = Entitlement.allCases.map(\.rawValue)
        for (index, element) in elements.enumerated() {
            guard let entitlement = Entitlement(rawValue: element.text) else {
                reader.issue(
                    "\(key)[\(index)]", at: element.node,
                    "unknown entitlement '\(element.text)'\(AccessYAML.suggestion(for: element.text, among: names)); allowed: \(names.joined(separator: ", "))")
                continue
            }
            if !result.insert(entitlement).inserted {
                reader.warn("\(key)[\(index)]", at: element.node, "'\(element.text)' is listed more than once")
            }
        }
        return result
    }
}
