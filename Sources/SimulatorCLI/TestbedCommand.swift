import ArgumentParser
import Foundation
import Logging
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import WearableGatewayTesting

/// `wearable-sim testbed`: a private broker and gateway for tests written in any language.
struct TestbedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "testbed",
        abstract: "Start a private mosquitto on a free port and a gateway on it; print where, run until SIGTERM or stdin closes.",
        discussion: """
            Prints `key=value` lines, then `ready` once the gateway is online:

              broker=mqtt://127.0.0.1:PORT     (always the first line)
              http=http://127.0.0.1:PORT       (with --http: metrics, health, the fleet page)
              ready

            Read lines up to `ready`; more keys may come in later versions. \
            The broker is open (anonymous, no ACL); the gateway runs with the test defaults of the Swift testing kit \
            (metrics every 0.2 s, error reports every second, an open registry unless --registry is given), changed \
            by --set. Stops on SIGTERM, SIGINT or end of stdin, and removes its broker, temporary directory and \
            recorder store. Needs mosquitto: $MOSQUITTO_BIN, else the first of /usr/sbin/mosquitto, \
            /usr/local/sbin/mosquitto, /usr/bin/mosquitto, else `mosquitto` on the PATH.
            """)

    @Option(help: "Device registry file (YAML of config/devices.yml); default: open registry.")
    var registry: String?

    @Option(help: "Gateway log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "error"

    @Flag(help: "Serve the gateway's HTTP endpoints on a free loopback port (printed as http=...).")
    var http = false

    @Option(name: .customLong("set"), help: ArgumentHelp("Set a gateway configuration key (repeatable), as `wearable-gateway --set`.", valueName: "key=value"))
    var settings: [String] = []

    func run() async throws {
        let level = try bootstrapLogging(logLevel)
        let stop = StopFlag()
        stop.installSignalHandlers()
        // End of stdin (the test runner closed the pipe or died) stops the testbed too.
        Thread {
            _ = FileHandle.standardInput.readDataToEndOfFile()
            stop.set()
        }.start()

        let broker = try TestBroker()
        defer { broker.shutdown() }
        var configuration = try GatewayHarness.configuration(broker: broker)
        if let registry { configuration.registryFile = URL(fileURLWithPath: registry).path }
        if http { configuration.http.listen = HTTPListenAddress(host: "127.0.0.1", port: try TestBroker.freePort()) }
        configuration = try Self.applying(settings, to: configuration)
        let gateway = try GatewayHarness(configuration: configuration, logLevel: level)
        gateway.start()
        let (observer, online) = try await TestClients.observer(broker, subscribedTo: [configuration.topics.scheme.statusTopic])
        try await online.wait(timeout: 30, "the gateway to come online") { messages in
            messages.contains { $0.payloadString.contains("\"online\"") }
        }
        await observer.shutdown()
        try await GatewayRun.waitUntilSubscribed(broker, configuration: configuration)

        print("broker=\(broker.url)")
        if let listen = configuration.http.listen { print("http=http://\(listen.host):\(listen.port)") }
        print("ready")
        fflush(nil)  // stdout is a pipe for scripts: make the line visible now

        await stop.wait(upTo: nil)
        try await gateway.stop()
    }

    /// `configuration` with the `--set key=value` settings applied through the key table.
    static func applying(_ settings: [String], to configuration: GatewayConfiguration) throws -> GatewayConfiguration {
        do {
            let overrides = try ConfigurationLoader.overrides(parsingSettings: settings)
            return try ConfigurationLoader.load(file: nil, environment: [:], overrides: overrides, base: configuration).configuration
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
