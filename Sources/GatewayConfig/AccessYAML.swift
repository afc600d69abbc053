import Foundation
import Yams

/// YAML helpers shared by the registry and capability-table loaders: read and compose a file,
/// and walk nodes while collecting ``ConfigurationIssue``s that name `file:line` and a key path.
package struct AccessYAML {
    /// The file name used in `source` (`config/devices.yml`).
    package let file: String
    /// Problems found so far, in file order.
    package var issues: [ConfigurationIssue] = []
    /// Non-fatal remarks.
    package var warnings: [String] = []

    package init(file: String) {
        self.file = file
    }

    /// Reads `path` as UTF-8 text.
    package static func read(_ path: String) throws(ConfigurationError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(issues: [
                ConfigurationIssue(key: "(file)", source: path, message: "cannot read the file: \(error.localizedDescription)")
            ])
        }
    }

    /// Composes `text`; syntax errors become an issue with the line Yams reports.
    /// - Returns: the root node, or nil (with an issue recorded) when the text is not YAML or is empty.
    package mutating func compose(_ text: String) -> Node? {
        do {
            guard let root = try Yams.compose(yaml: text) else {
                issues.append(ConfigurationIssue(key: "(file)", source: file, message: "the file is empty"))
                return nil
            }
            return root
        } catch let error as YamlError {
            switch error {
            case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
                .composer(let context, let problem, let mark, _):
                let context = context.map { "\($0.text) " } ?? ""
                issues.append(ConfigurationIssue(key: "(file)", source: "\(file):\(mark.line)", message: "not valid YAML: \(context)\(problem)"))
            case .duplicatedKeysInMapping(let duplicates, let context):
                let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
                issues.append(
                    ConfigurationIssue(key: "(file)", source: "\(file):\(context.mark.line)", message: "duplicate key \(keys) in one mapping"))
            default:
                issues.append(ConfigurationIssue(key: "(file)", source: file, message: "not valid YAML: \(error)"))
            }
            return nil
        } catch {
            issues.append(ConfigurationIssue(key: "(file)", source: file, message: "not valid YAML: \(error)"))
            return nil
        }
    }

    /// `file:line` of a node (`file` alone when Yams has no mark).
    package func source(_ node: Node) -> String {
        node.mark.map { "\(file):\($0.line)" } ?? file
    }

    /// Records a problem at a node.
    package mutating func issue(_ key: String, at node: Node, _ message: String) {
        issues.append(ConfigurationIssue(key: key, source: source(node), message: message))
    }

    /// Records a remark at a node.
    package mutating func warn(_ key: String, at node: Node, _ message: String) {
        warnings.append("\(source(node)): \(key): \(message)")
    }

    /// Whether a node is YAML null (empty, `~` or `null`).
    package static func isNull(_ node: Node) -> Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// A mapping's entries with their key text; records an issue when `node` is not a mapping.
    /// - Returns: nil after recording an issue.
    package mutating func mapping(_ node: Node, key: String, expected: String) -> [(name: String, keyNode: Node, value: Node)]? {
        guard case .mapping(let mapping) = node else {
            issue(key, at: node, "expected \(expected), found \(Self.kind(node))")
            return nil
        }
        var entries: [(name: String, keyNode: Node, value: Node)] = []
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                issue(key, at: keyNode, "keys must be plain text, found \(Self.kind(keyNode))")
                continue
            }
            entries.append((scalar.string, keyNode, value))
        }
        return entries
    }

    /// A sequence of scalars (null is an empty list); records an issue for anything else.
    /// - Returns: each element's text and node, or nil after recording an issue.
    package mutating func scalars(_ node: Node, key: String) -> [(text: String, node: Node)]? {
        if Self.isNull(node) { return [] }
        guard case .sequence(let sequence) = node else {
            issue(key, at: node, "expected a list such as [a, b], found \(Self.kind(node))")
            return nil
        }
        var elements: [(text: String, node: Node)] = []
        for (index, element) in sequence.enumerated() {
            guard case .scalar(let scalar) = element else {
                issue("\(key)[\(index)]", at: element, "expected a single value, found \(Self.kind(element))")
                continue
            }
            elements.append((scalar.string, element))
        }
        return elements
    }

    /// A scalar's text; records an issue for a list or mapping.
    package mutating func scalar(_ node: Node, key: String) -> String? {
        guard case .scalar(let scalar) = node else {
            issue(key, at: node, "expected a single value, found \(Self.kind(node))")
            return nil
        }
        return scalar.string
    }

    /// Records an issue for every key not in `allowed`, with a suggestion for near misses.
    package mutating func rejectUnknownKeys(_ entries: [(name: String, keyNode: Node, value: Node)], allowed: [String], prefix: String) {
        for entry in entries where !allowed.contains(entry.name) {
            let path = prefix.isEmpty ? entry.name : "\(prefix).\(entry.name)"
            issue(path, at: entry.keyNode, "unknown key\(Self.suggestion(for: entry.name, among: allowed)); allowed: \(allowed.joined(separator: ", "))")
        }
    }

    /// `" (did you mean 'x'?)"` for a near miss among `candidates`, else `""`.
    package static func suggestion(for text: String, among candidates: [String]) -> String {
        let best = candidates.map { ($0, editDistance($0.lowercased(), text.lowercased())) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= max(2, text.count / 4) else { return "" }
        return " (did you mean '\(best.0)'?)"
    }

    /// "a list", "a mapping", "a value", for messages.
    package static func kind(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): isNull(node) ? "nothing" : "the value '\(scalar.string)'"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias (aliases are not supported here)"
        }
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
