import Foundation
import Logging
import MQTTTransport

/// Plays a ``ReplaySchedule`` into a broker: the stored (retained) frames first, then every
/// live frame at its recorded time divided by `speed`, each with its original topic, payload,
/// QoS, retain flag and MQTT 5 properties.
///
/// Everything goes out on one connection, so the broker receives the frames in exactly the
/// scheduled order (which the expected sequence anomalies assume). That connection publishes
/// on every device's topics: use an open test broker, as `wearable-sim load` does.
public enum CaptureReplayer {
    /// Publishes the schedule and waits until the broker acknowledged every frame.
    /// - Parameters:
    ///   - schedule: what to send (``FaultPlan/schedule(_:)``).
    ///   - broker: the broker URL.
    ///   - speed: playback speed; 2 plays twice as fast, 0 sends as fast as the broker takes it.
    ///   - configure: changes to the client configuration (credentials, TLS).
    /// - Throws: when the connection fails or a publish is refused.
    public static func play(
        _ schedule: ReplaySchedule, broker: String, speed: Double = 1, logger: Logger = TestClients.logger,
        configure: (inout MQTTClientConfiguration) -> Void = { _ in }
    ) async throws {
        var configuration = MQTTClientConfiguration(broker: try BrokerURL(parsing: broker), clientID: "wearable-replay-\(UUID().uuidString.prefix(8))")
        configure(&configuration)
        let client = try MQTTClient(configuration: configuration, logger: logger)
        client.start()
        do {
            try await client.waitUntilConnected(timeout: 30)
            try await play(schedule, on: client, speed: speed)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    /// Publishes the schedule on a connected client and waits for the acknowledgements.
    public static func play(_ schedule: ReplaySchedule, on client: MQTTClient, speed: Double = 1) async throws {
        let failedBefore = client.statistics.publishesFailed
        for frame in schedule.stored { try await client.send(frame.message) }
        let clock = ContinuousClock()
        let start = clock.now
        for entry in schedule.entries {
            if speed > 0 {
                // Pacing the replay, not synchronising a test: frames keep their recorded spacing.
                try await clock.sleep(until: start + .seconds(entry.time / speed))
            }
            try await client.send(entry.frame.message)
        }
        guard await client.flush(timeout: 120) else { throw TestFailure("the broker did not acknowledge the replay within 120 s") }
        let failed = client.statistics.publishesFailed - failedBefore
        if failed > 0 { throw TestFailure("\(failed) replayed frames failed") }
    }
}
