import ArgumentParser
import TelemetryCore
import TelemetryGateway

/// `wearable-gateway`: the MQTT gateway for wearable telemetry.
@main
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wearable-gateway",
        abstract: "Bridges Core Motion telemetry from watches, phones and headphones over MQTT.",
        discussion: """
            Subscribes to <inboundRoot>/{id}/<stream> (default wearables/+/#), checks every frame and \
            publishes status, presence, errors and derived events under <outboundRoot>/ (default gateway/).
            Configuration: defaults < YAML file < WG_* environment variables < flags. \
            See docs/configuration.md or `wearable-gateway config-keys`; for the metrics, docs/metrics.md or \
            `wearable-gateway metrics-reference`.
            """,
        version: ProductVersion.current,
        subcommands: [RunCommand.self, CheckConfigCommand.self, ConfigKeysCommand.self, MetricsReferenceCommand.self],
        defaultSubcommand: RunCommand.self)
}
