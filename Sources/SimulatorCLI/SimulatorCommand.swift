import ArgumentParser
import TelemetryCore

/// `wearable-sim`: seeded synthetic wearables publishing the wire contract to a broker.
@main
struct SimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wearable-sim",
        abstract: "Publish seeded, realistic Core Motion telemetry for a fleet of simulated wearables.",
        discussion: """
            Every device publishes hello and status (retained, with an offline will), authorization, workout, and \
            every inbound stream it supports at its real rate: 800 Hz accelerometer and 200 Hz device-motion batches \
            once a second, 50 Hz motion, 25 Hz headphone motion, 3 Hz submersion, pedometer, altimeter and \
            recorder chunks. The same --seed gives byte-identical payloads.
            """,
        version: ProductVersion.current,
        subcommands: [
            PublishCommand.self, LoadCommand.self, GenerateCommand.self, FootprintCommand.self, RecordCommand.self, ReplayCommand.self, TestbedCommand.self,
            ContractSamplesCommand.self, ContractCheckCommand.self,
        ],
        defaultSubcommand: PublishCommand.self)
}
