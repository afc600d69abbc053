import ArgumentParser
import Foundation
import Logging
import TelemetrySimulation

/// `wearable-sim publish` (default): real-time traffic for a fleet.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish real-time traffic until --duration elapses (0: until interrupted).")

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Number of simulated devices (a mix of Apple Watch Ultra 2, Series 9, AirPods Pro and iPhone).")
    var devices: Int = 4

    @Option(help: "Seed: the same seed publishes the same data.")
    var seed: UInt64 = 1

    @Option(help: "Seconds to run; 0 runs until SIGINT/SIGTERM.")
    var duration: Double = 30

    @Option(help: "Fleet: 'mixed' (--devices devices of every kind) or 'rule-breakers' (one device per access rule broken, plus a compliant Ultra).")
    var scenario: Scenario = .mixed

    enum Scenario: String, ExpressibleByArgument, CaseIterable {
        case mixed
        case ruleBreakers = "rule-breakers"
    }

    func validate() throws {
        guard devices >= 1 && devices <= 10_000 else { throw ValidationError("--devices must be from 1 to 10000") }
        guard duration >= 0 else { throw ValidationError("--duration must not be negative") }
    }

    func run() async throws {
        let logger = try connection.makeLogger()
        let startDate = Date().timeIntervalSince1970
        let fleet: [SimulatedDevice] =
            switch scenario {
            case .mixed: SimulatedFleet.mixed(count: devices)
            case .ruleBreakers: SimulatedFleet.ruleBreakers() + [.appleWatchUltra2(id: "watch-ultra-1")]
            }
        var generator = TrafficGenerator(seed: seed, devices: fleet, startDate: startDate)
        logger.info(
            "simulating \(fleet.count) devices (\(Dictionary(grouping: fleet, by: \.kind).map { "\($0.value.count) \($0.key.rawValue)" }.sorted().joined(separator: ", "))), seed \(seed), broker \(connection.broker)")
        let connections = try DeviceConnections(devices: fleet, options: connection, logger: logger)
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
}
