import ArgumentParser
import Foundation
import TelemetryCore
import WearableGatewayTesting

/// `wearable-sim record`: captures a live session into a capture file.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record every frame on a topic filter into a capture file (docs/testing.md, \"Capture format\").",
        discussion: """
            Writes each message with its arrival time, topic, QoS, retain flag (subscribed with MQTT 5 \
            retain-as-published), payload and MQTT 5 properties, one JSON line per frame, as it arrives. Messages \
            from the broker's retained store are marked "stored" (replay sends them first). Prints "recording …" \
            once subscribed; stops after --duration or on SIGINT/SIGTERM, then writes the trailer.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Capture file to write (replaced if it exists).")
    var output: String

    @Option(help: "Topic filter to record.")
    var filter: String = TopicScheme().inboundRootFilter

    @Option(help: "Seconds to record; 0 records until SIGINT/SIGTERM.")
    var duration: Double = 0

    func validate() throws {
        guard duration >= 0 && duration.isFinite else { throw ValidationError("--duration must be a non-negative number of seconds") }
    }

    func run() async throws {
        let logger = try connection.makeLogger()
        let stop = StopFlag()
        stop.installSignalHandlers()
        _ = try connection.brokerURL()
        let recorder = try await CaptureRecorder(
            broker: connection.broker, filter: filter, output: URL(fileURLWithPath: output), logger: logger,
            configure: connection.applyCredentials(to:))
        print("recording \(filter) from \(connection.broker) into \(output)")
        fflush(nil)  // stdout is a pipe for scripts: make the line visible now
        await stop.wait(upTo: duration > 0 ? duration : nil)
        let count = try await recorder.finish()
        print("recorded \(count) frames in \(String(format: "%.2f", recorder.elapsed)) s")
    }
}
