import ArgumentParser
import TelemetryGateway

/// `wearable-gateway config-keys`: prints every configuration key as a Markdown table.
struct ConfigKeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config-keys",
        abstract: "Print every configuration key with its environment variable, default and meaning (Markdown).")

    func run() {
        print("| key | environment | default | meaning |")
        print("|---|---|---|---|")
        for key in GatewayConfiguration.keys {
            print("| `\(key.path)` | `\(key.environmentName)` | `\(key.defaultValue)` | \(key.summary) |")
        }
    }
}
