import ArgumentParser
import Foundation
import Logging
import TelemetryCore
import WearableGatewayTesting

/// `wearable-sim replay`: plays a capture file back into a broker, optionally with faults.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Play a capture file back with its original timing (scaled by --speed), with optional seeded faults.",
        discussion: """
            Sends the frames that came from the broker's retained store first, then every live frame at its \
            recorded time divided by --speed, on one connection (use an open test broker). Faults apply to live \
            frames in this order: --cut-at, --drop, --duplicate, --reorder, --delay (docs/testing.md, "Fault \
            injection"). Prints what was injected and the sequence anomalies the gateway must count \
            (gateway_sequence_anomalies_total by kind), then exits.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Capture file to play.")
    var input: String

    @Option(help: "Playback speed: 2 plays twice as fast, 0 as fast as the broker takes it.")
    var speed: Double = 1

    @Option(help: "Probability of dropping each live frame (0-1).")
    var drop: Double = 0

    @Option(help: "Probability of sending each live frame twice (0-1).")
    var duplicate: Double = 0

    @Option(help: "Probability of swapping each live frame with the next one of its topic (0-1).")
    var reorder: Double = 0

    @Option(help: "Largest extra delay per live frame, milliseconds (uniform; can reorder).")
    var delay: Double = 0

    @Option(help: "Send nothing recorded after this many seconds.")
    var cutAt: Double?

    @Option(help: "Seed of the fault decisions.")
    var seed: UInt64 = 1

    var faults: FaultPlan { FaultPlan(seed: seed, drop: drop, duplicate: duplicate, reorder: reorder, delay: delay, cutAt: cutAt) }

    func validate() throws {
        guard speed >= 0 && speed.isFinite else { throw ValidationError("--speed must be 0 or a positive number") }
        if let problem = faults.problem { throw ValidationError(problem) }
    }

    func run() async throws {
        let logger = try connection.makeLogger()
        _ = try connection.brokerURL()
        let capture = try SessionCapture.read(from: URL(fileURLWithPath: input))
        if capture.trailer == nil { logger.warning("\(input) has no trailer: the recording was cut off; replaying what it holds") }
        let schedule = faults.schedule(capture.frames)
        let expected = schedule.expectedSequenceAnomalies(inboundRoot: connection.root)
        print("injected: \(schedule.report)")
        print("expected sequence anomalies: missing=\(expected.missing) duplicate=\(expected.duplicates) reordered=\(expected.reordered) restarted=\(expected.restarts)")
        fflush(nil)  // stdout is a pipe for scripts: make the line visible now
        try await CaptureReplayer.play(
            schedule, broker: connection.broker, speed: speed, logger: logger, configure: connection.applyCredentials(to:))
        print("replayed \(schedule.report.published) frames")
    }
}
