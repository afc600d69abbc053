import ArgumentParser
import Foundation
import Logging
import MQTTTransport
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
              ready

            (An `http=` line will join them, before `ready`, when the gateway serves HTTP: read lines up to `ready`.) \
            The broker is open (anonymous, no ACL); the gateway runs with the test defaults of the Swift testing kit \
            (metrics every 0.2 s, error reports every second, an open registry unless --registry is given). Stops on \
            SIGTERM, SIGINT or end of stdin, and removes its broker, temporary directory and recorder store. \
            Needs mosquitto ($MOSQUITTO_BIN, else /usr/sbin/mosquitto).
            """)

    @Option(help: "Device registry file (YAML of config/devices.yml); default: open registry.")
    var registry: String?

    @Option(help: "Gateway log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "error"

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
        let gateway = try GatewayHarness(configuration: configuration, logLevel: level)
        gateway.start()
        let online = MessageCollector()
        let observer = try await TestClients.connected(try TestClients.configuration(broker), onMessage: online.handler)
        try await observer.subscribe(["\(configuration.topics.outboundRoot)/status"], qos: .atLeastOnce)
        try await online.wait(timeout: 30, "the gateway to come online") { messages in
            messages.contains { $0.payloadString.contains("\"online\"") }
        }
        await observer.shutdown()
        try await GatewayRun.waitUntilSubscribed(broker, configuration: configuration)

        print("broker=\(broker.url)")
        // An `http=` line goes here once the gateway serves HTTP.
        print("ready")
        fflush(nil)  // stdout is a pipe for scripts: make the line visible now

        await stop.wait(upTo: nil)
        try await gateway.stop()
    }
}
