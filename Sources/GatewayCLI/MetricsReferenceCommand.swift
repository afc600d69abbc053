import ArgumentParser
import TelemetryGateway

/// `wearable-gateway metrics-reference`: prints every metric family of ``MetricCatalog`` as a
/// Markdown table (name, type, labels, help), in the catalog's order. docs/metrics.md holds this
/// output; scripts/check-docs.py fails when the two differ (`--write-metrics-table` rewrites it).
struct MetricsReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics-reference",
        abstract: "Print every metric family with its type, labels and help text (Markdown).")

    func run() {
        print("| name | type | labels | help |")
        print("|---|---|---|---|")
        for family in MetricCatalog.families {
            let labels = family.labels.map { "`\($0)`" }.joined(separator: ", ")
            print("| `\(family.name)` | \(family.kind.rawValue) | \(labels) | \(Self.cell(family.help)) |")
        }
    }

    /// `text` fit for a table cell: a `|` would end the cell, so each is written `\|`.
    static func cell(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }
}
