import Foundation
import Yams

/// A configuration that passed validation, with the non-fatal remarks made while loading.
public struct LoadedConfiguration: Sendable {
    /// The configuration to run with.
    public var configuration: GatewayConfiguration
    /// Remarks worth logging (e.g. an unknown `WG_*` environment variable).
    public var warnings: [String]
}

/// Builds a ``GatewayConfiguration`` from defaults, the YAML file, `WG_*` environment
/// variables and command-line overrides, in that order of precedence (later wins).
public enum ConfigurationLoader {
    /// Loads and validates.
    /// - Parameters:
    ///   - file: the YAML file, or nil for defaults only.
    ///   - environment: the process environment (only `WG_*` variables are read).
    ///   - overrides: `(key, value)` pairs from flags, applied last.
    ///   - base: what the sources change (the defaults unless given, e.g. the testing kit's).
    /// - Throws: ``ConfigurationError`` listing every problem, each naming its key and source.
    public static func load(
        file: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        overrides: [(key: String, value: String)] = [],
        base: GatewayConfiguration = GatewayConfiguration()
    ) throws(ConfigurationError) -> LoadedConfiguration {
        var configuration = base
        var issues: [ConfigurationIssue] = []
        var warnings: [String] = []
        let keysByPath = Dictionary(uniqueKeysWithValues: GatewayConfiguration.keys.map { ($0.path, $0) })

        func apply(_ path: String, _ value: String, source: String) {
            guard let key = keysByPath[path] else {
                issues.append(.init(key: path, source: source, message: GatewayConfiguration.removedKeys[path] ?? "unknown key" + suggestion(for: path)))
                return
            }
            if let problem = key.apply(&configuration, value) {
                issues.append(.init(key: path, source: source, message: problem))
            }
        }

        if let file {
            do {
                for entry in try yamlEntries(file: file) {
                    if let value = entry.value {
                        apply(entry.path, value, source: "\(file):\(entry.line)")
                    } else {
                        issues.append(.init(key: entry.path, source: "\(file):\(entry.line)", message: "expected a single value, found a list or mapping"))
                    }
                }
            } catch let error as ConfigurationIssue {
                issues.append(error)
            } catch {
                issues.append(.init(key: "(file)", source: file, message: "\(error)"))
            }
        }

        let environmentNames = Dictionary(uniqueKeysWithValues: GatewayConfiguration.keys.map { ($0.environmentName, $0.path) })
        let removedNames = Dictionary(uniqueKeysWithValues: GatewayConfiguration.removedKeys.keys.map { (ConfigurationKey.environmentName(of: $0), $0) })
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("WG_") {
            if let path = environmentNames[name] ?? removedNames[name] {
                apply(path, value, source: "environment \(name)")
            } else if !ignoredEnvironment.contains(name) {
                warnings.append("environment variable \(name) is not a configuration key; ignored")
            }
        }

        for (path, value) in overrides {
            apply(path, value, source: "command line")
        }

        if let passwordFile = configuration.mqtt.passwordFile {
            // Read even when a password is set elsewhere, so a broken file never goes unnoticed.
            switch CredentialFiles.password(at: passwordFile) {
            case .success(let password): if configuration.mqtt.password == nil { configuration.mqtt.password = password }
            case .failure(let problem): issues.append(.init(key: "mqtt.passwordFile", source: "configuration", message: problem.message))
            }
        }
        if let passwordFile = configuration.store.passwordFile {
            switch CredentialFiles.password(at: passwordFile) {
            case .success(let password): configuration.store.password = password
            case .failure(let problem): issues.append(.init(key: "store.passwordFile", source: "configuration", message: problem.message))
            }
        }
        for (group, file) in configuration.http.tokenFiles.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            switch CredentialFiles.tokens(at: file) {
            case .success(let tokens): configuration.http.accessTokens = configuration.http.accessTokens.adding(tokens, for: group)
            case .failure(let problem): issues.append(.init(key: group.tokenFileKey, source: "configuration", message: problem.message))
            }
        }
        issues += configuration.keyIssues()
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        return LoadedConfiguration(configuration: configuration, warnings: warnings)
    }

    /// The `(key, value)` pairs of `--set key=value` flags, each split at its first `=`.
    /// - Throws: ``ConfigurationError`` naming every setting without an `=`.
    public static func overrides(parsingSettings settings: [String]) throws(ConfigurationError) -> [(key: String, value: String)] {
        var overrides: [(key: String, value: String)] = []
        var issues: [ConfigurationIssue] = []
        for setting in settings {
            if let equals = setting.firstIndex(of: "=") {
                overrides.append((String(setting[..<equals]), String(setting[setting.index(after: equals)...])))
            } else {
                issues.append(.init(key: setting, source: "--set", message: "expected key=value"))
            }
        }
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        return overrides
    }

    /// `WG_*` variables used by the project's scripts and tests, not configuration keys.
    private static let ignoredEnvironment: Set<String> = ["WG_REPO_ROOT", "WG_TEST_LOG_LEVEL", "WG_GATEWAY_BIN", "WG_SIM_BIN", "WG_SWIFT_FLAGS", "WG_TEST_POSTGRES_URL"]

    /// One scalar of a YAML file at its dotted path.
    package struct Entry {
        package var path: String
        package var value: String?
        package var line: Int
    }

    /// Flattens the YAML mapping into dotted paths with their line numbers.
    package static func yamlEntries(file: String) throws -> [Entry] {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw ConfigurationIssue(key: "(file)", source: file, message: "cannot read the file: \(error.localizedDescription)")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationIssue(key: "(file)", source: file, message: "not valid YAML: \(error)")
        }
        guard let root else { return [] }
        guard case .mapping(let mapping) = root else {
            throw ConfigurationIssue(key: "(file)", source: file, message: "the top level must be a mapping of keys")
        }
        var entries: [Entry] = []
        func walk(_ mapping: Node.Mapping, prefix: String) {
            for (keyNode, valueNode) in mapping {
                let name = keyNode.scalar?.string ?? "\(keyNode)"
                let path = prefix.isEmpty ? name : "\(prefix).\(name)"
                let line = (keyNode.mark?.line ?? 0)
                switch valueNode {
                case .mapping(let nested) where hasNestedKeys(path):
                    walk(nested, prefix: path)
                case .scalar(let scalar):
                    entries.append(Entry(path: path, value: scalar.string, line: line))
                default:
                    entries.append(Entry(path: path, value: hasNestedKeys(path) || isKnown(path) ? nil : "", line: line))
                }
            }
        }
        walk(mapping, prefix: "")
        return entries
    }

    private static func hasNestedKeys(_ path: String) -> Bool {
        GatewayConfiguration.keys.contains { $0.path.hasPrefix(path + ".") }
    }

    private static func isKnown(_ path: String) -> Bool {
        GatewayConfiguration.keys.contains { $0.path == path }
    }

    /// " (did you mean 'mqtt.keepalive'?)" for a near miss, else "".
    package static func suggestion(for path: String) -> String {
        let candidates = GatewayConfiguration.keys.map(\.path)
        let best = candidates.map { ($0, editDistance($0.lowercased(), path.lowercased())) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= max(2, path.count / 4) else { return "" }
        return " (did you mean '\(best.0)'?)"
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension ConfigurationIssue: Error {}

/// File checks used by validation.
package enum FileSystem {
    package static func isReadableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isReadableFile(atPath: path)
    }
}
