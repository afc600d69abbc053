import Foundation
import Testing

@testable import TelemetryGateway

/// `config/gateway.yml` says its values are the defaults: each one must equal its key's
/// default in the key table, unless its line names it a deliberate exception (a comment with
/// `deliberate:` and the reason).
@Suite("The shipped config/gateway.yml")
struct ShippedConfigurationTests {
    static var file: String { RepositoryFiles.root.appendingPathComponent("config/gateway.yml").path }

    /// A value as a comparable form: numbers by value, null and `(none)` alike, text as is.
    static func normalized(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if ["null", "~", "(none)", ""].contains(trimmed) { return "null" }
        if let number = Double(trimmed) { return "\(number)" }
        return trimmed
    }

    @Test("every value is its key's default, or a deliberate exception named on its line")
    func valuesAreTheDefaults() throws {
        let lines = try String(contentsOfFile: Self.file, encoding: .utf8).components(separatedBy: "\n")
        let entries = try ConfigurationLoader.yamlEntries(file: Self.file)
        #expect(entries.count > 40, "the file was not read")
        for entry in entries {
            let key = try #require(GatewayConfiguration.keys.first { $0.path == entry.path }, "\(entry.path) is not a key")
            let line = entry.line > 0 && entry.line <= lines.count ? lines[entry.line - 1] : ""
            guard !line.contains("deliberate:") else { continue }
            #expect(
                Self.normalized(entry.value ?? "null") == Self.normalized(key.defaultValue),
                "config/gateway.yml line \(entry.line): \(entry.path) is \(entry.value ?? "null") but its default is \(key.defaultValue)")
        }
    }
}
