import ArgumentParser
import Foundation
import Logging
import MQTTTransport
import TelemetryCore
import TelemetrySimulation
import WearableGatewayTesting

/// `wearable-sim publish` (default): real-time traffic for a fleet.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish real-time traffic until --duration elapses (0: until interrupted).")

    @OptionGroup var connection: ConnectionOptions

    @Option(
        help: "Number of simulated devices (a mix of Apple Watch Ultra 2, Series 9, AirPods Pro and iPhone), one MQTT connection each; the open-file limit is raised to the hard limit when they need it.")
    var devices: Int = 4

    @Option(help: "Seed: the same seed publishes the same data.")
    var seed: UInt64 = 1

    @Option(help: "Seconds to run; 0 runs until SIGINT/SIGTERM.")
    var duration: Double = 30

    @Option(
        help: """
            Fleet: 'mixed' (--devices devices of every kind), 'rule-breakers' (one device per access rule broken, plus a compliant Ultra), \
            or one scripted run with ground truth: 'urban-run' (watch-run-1) or 'trail-run' (watch-run-2), played to its end (--duration does not apply), \
            or 'tremor' (watch-tremor-1): the last 10 minutes of CMSensorRecorder history with tremor of known class, uploaded at once, \
            or 'dive' (watch-ultra-1): a 5.8 m dive with the 6 m limit and its ground-truth depth states, played to its end.
            """)
    var scenario: Scenario = .mixed

    @Option(help: "Device id of the 'dive' scenario (one listed in the gateway's registry).")
    var diveDevice = "watch-ultra-1"

    @Option(help: "Playback speed of the run scenarios: 10 plays a 25-minute run in 2.5 minutes.")
    var speed: Double = 1

    @Option(help: EncodingOption.help)
    var encoding: EncodingOption = .json

    @Flag(
        help: """
            Check the gateway's output against the scenario's ground truth (urban-run, trail-run: run segments; dive: depth states): \
            subscribe to it before publishing, wait until the gateway processed every frame (its gateway/metrics), print a diff \
            and exit 1 when they differ.
            """)
    var expect = false

    @Option(help: "Gateway outbound root, for --expect.")
    var outboundRoot: String = TopicScheme.defaultOutboundRoot

    @Option(help: "Seconds --expect waits for the gateway to process the frames.")
    var expectTimeout: Double = 120

    enum Scenario: String, ExpressibleByArgument, CaseIterable {
        case mixed
        case ruleBreakers = "rule-breakers"
        case urbanRun = "urban-run"
        case trailRun = "trail-run"
        case tremor
        case dive
    }

    func validate() throws {
        guard devices >= 1 && devices <= 10_000 else { throw ValidationError("--devices must be from 1 to 10000") }
        guard duration >= 0 else { throw ValidationError("--duration must not be negative") }
        guard speed > 0 && speed.isFinite else { throw ValidationError("--speed must be a positive number") }
        if expect && ![.urbanRun, .trailRun, .dive].contains(scenario) {
            throw ValidationError("--expect needs a scenario with ground truth: urban-run, trail-run or dive")
        }
    }

    func run() async throws {
        let logger = try connection.makeLogger()
        let startDate = Date().timeIntervalSince1970
        let fleet: [SimulatedDevice]
        switch scenario {
        case .mixed: fleet = SimulatedFleet.mixed(count: devices)
        case .ruleBreakers: fleet = SimulatedFleet.ruleBreakers() + [.appleWatchUltra2(id: "watch-ultra-1")]
        case .urbanRun: return try await play(.urbanRun(seed: seed), startDate: startDate, logger: logger)
        case .trailRun: return try await play(.trailRun(seed: seed), startDate: startDate, logger: logger)
        case .dive: return try await play(DiveScenario.approachingMaxDepth(deviceId: diveDevice), startDate: startDate, logger: logger)
        case .tremor: return try await upload(TremorScenario(deviceId: "watch-tremor-1", seed: seed, startDate: startDate - 660), logger: logger)
        }
        var generator = TrafficGenerator(seed: seed, devices: fleet, startDate: startDate)
        logger.info(
            "simulating \(fleet.count) devices (\(Dictionary(grouping: fleet, by: \.kind).map { "\($0.value.count) \($0.key.rawValue)" }.sorted().joined(separator: ", "))), seed \(seed), broker \(connection.broker)")
        let connections = try DeviceConnections(devices: fleet, options: connection, encoding: encoding.encoding, logger: logger)
        try await connections.waitUntilConnected(timeout: 30)

        let stop = StopFlag()
        stop.installSignalHandlers()
        let clock = ContinuousClock()
        let start = clock.now
        var published = 0
        var bytes = 0
        var lastReport = 0.0
        while !stop.isSet {
            let elapsed = (clock.now - start) / .seconds(1)
            let until = duration > 0 ? min(elapsed, duration) : elapsed
            for frame in generator.advance(to: until) {
                try await connections.send(frame, root: connection.root)
                published += 1
                bytes += frame.payload.count
            }
            if elapsed - lastReport >= 5 {
                lastReport = elapsed
                logger.info("t=\(Int(elapsed))s: \(published) frames, \(bytes / 1024) KiB published")
            }
            if duration > 0 && elapsed >= duration { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        await connections.finish(root: connection.root, date: startDate + generator.currentTime)
        let (acknowledged, failed) = connections.statistics
        logger.info("done: \(published) frames (\(bytes / 1024) KiB) in \(Int(generator.currentTime)) s; acknowledged \(acknowledged), failed \(failed)")
        if failed > 0 { throw ExitCode(1) }
    }

    /// Publishes a tremor recording's chunks as a device uploads its recorder history: all at
    /// once, in order; then logs each minute's ground truth.
    private func upload(_ recording: TremorScenario, logger: Logger) async throws {
        let frames = recording.frames()
        logger.info("uploading \(recording.minutes.count) minutes of recorder history of \(recording.deviceId) (\(frames.count) frames), broker \(connection.broker)")
        let device = SimulatedDevice.appleWatchSeries9(id: recording.deviceId, activity: .walking)
        let connections = try DeviceConnections(devices: [device], options: connection, encoding: encoding.encoding, logger: logger)
        try await connections.waitUntilConnected(timeout: 30)
        for frame in frames { try await connections.send(frame, root: connection.root) }
        await connections.finish(root: connection.root, date: recording.startDate + Double(recording.minutes.count) * 60)
        for minute in recording.minutes {
            logger.info(
                "minute \(Int(minute.startDate)): expected \(minute.severity.rawValue)\(minute.frequency.map { String(format: " at %.1f Hz", $0) } ?? ""), \(minute.voluntary.count) voluntary movements, \(minute.gaps.count) gaps")
        }
        let (acknowledged, failed) = connections.statistics
        logger.info("done: \(frames.count) frames; acknowledged \(acknowledged), failed \(failed)")
        if failed > 0 { throw ExitCode(1) }
    }

    /// Publishes a run scenario's frames at their scenario times (divided by --speed), then
    /// logs the segments the gateway should derive (and checks them with --expect).
    private func play(_ run: RunScenario, startDate: Double, logger: Logger) async throws {
        let frames = run.frames(startDate: startDate)
        logger.info("\(run.name) on \(run.deviceId): \(frames.count) frames over \(Int(run.workoutEnd)) s of run time at \(speed)x, broker \(connection.broker)")
        let expected = run.expectedSegments(startDate: startDate)
        for segment in expected {
            logger.info(
                "expected segment \(segment.index): \(Int(segment.activeDuration)) s, \(Int(segment.steps)) steps, \(Int(segment.distance)) m, gain \(Int(segment.elevationGain)) m, hill \(segment.hill)")
        }
        try await play(frames, device: run.device, endDate: startDate + run.workoutEnd, logger: logger) { received in
            GroundTruthComparison.runSegments(expected: expected, received: received)
        }
    }

    /// Publishes a dive scenario's frames at their times (divided by --speed); the gateway
    /// should publish its ground-truth depth states (checked with --expect).
    private func play(_ dive: DiveScenario, startDate: Double, logger: Logger) async throws {
        let frames = dive.frames(startDate: startDate)
        let expected = dive.expectedDepthStates()
        logger.info("dive \(dive.name) on \(dive.deviceId): \(frames.count) frames at \(speed)x, expected depth states \(expected.map(\.name).joined(separator: " → "))")
        try await play(frames, device: .appleWatchUltra2(id: dive.deviceId), endDate: startDate + (frames.last?.time ?? 0), logger: logger) { received in
            GroundTruthComparison.depthStates(expected: expected, received: received)
        }
    }

    /// Publishes one device's scripted frames at their times (divided by --speed), marks it
    /// offline, and with --expect compares the gateway's output using `compare`.
    private func play(
        _ frames: [SimulatedFrame], device: SimulatedDevice, endDate: Double, logger: Logger,
        compare: @escaping ([MQTTMessage]) -> [String]
    ) async throws {
        let expectation = expect ? try await GatewayExpectation(connection: connection, outboundRoot: outboundRoot, device: device.id, logger: logger) : nil
        let connections = try DeviceConnections(devices: [device], options: connection, encoding: encoding.encoding, logger: logger)
        try await connections.waitUntilConnected(timeout: 30)
        let stop = StopFlag()
        stop.installSignalHandlers()
        let clock = ContinuousClock()
        let start = clock.now
        var sent = 0
        for frame in frames {
            while !stop.isSet, (clock.now - start) / .seconds(1) * speed < frame.time { try? await Task.sleep(for: .milliseconds(20)) }
            if stop.isSet { break }
            try await connections.send(frame, root: connection.root)
            sent += 1
        }
        await connections.finish(root: connection.root, date: endDate)
        let (acknowledged, failed) = connections.statistics
        logger.info("done: \(sent) frames; acknowledged \(acknowledged), failed \(failed)")
        if failed > 0 { throw ExitCode(1) }
        guard let expectation else { return }
        // Every frame plus the final offline status.
        let received = try await expectation.receivedOnceProcessed(frames: sent + 1, timeout: expectTimeout)
        let diff = compare(received)
        await expectation.shutdown()
        if diff.isEmpty {
            print("expectation met: the gateway's output matches the ground truth")
        } else {
            print("expectation failed: the gateway's output differs from the ground truth (- expected, + received)")
            for line in diff { print(line) }
            throw ExitCode(1)
        }
    }
}
