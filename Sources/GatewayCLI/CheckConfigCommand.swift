import ArgumentParser
import TelemetryCore
import TelemetryGateway

/// `wearable-gateway check-config`: validates the configuration and names every bad key.
struct CheckConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration (file, WG_* environment, flags); exit 78 naming each bad key.")

    @OptionGroup var options: ConfigurationOptions

    func run() async throws {
        let loaded = try options.load()
        let configuration = loaded.configuration
        let policy = try options.loadAccessPolicy(configuration)
        for warning in loaded.warnings + policy.warnings { print("warning: \(warning)") }
        print("configuration OK (\(options.configurationFile ?? "defaults only"))")
        print("  broker:   \(configuration.mqtt.broker)")
        print("  inbound:  \(configuration.topics.scheme.inboundFilter)")
        print("  outbound: \(configuration.topics.scheme.outboundRootFilter)")
        print("  registry: \(configuration.registryFile ?? "(none)")")
        print("  capabilities: \(configuration.capabilitiesFile)")
        print("  access policy: \(policy.summary)")
        print("  workers:  \(configuration.pipeline.workers == 0 ? "one per core" : "\(configuration.pipeline.workers)")")
        if configuration.cluster.isClustered {
            print("  cluster:  \(configuration.cluster.mode.rawValue) as \(configuration.cluster.instanceName) (client ids \(configuration.clientIDPrefix)-in/-out/-cluster)")
        }
    }
}
