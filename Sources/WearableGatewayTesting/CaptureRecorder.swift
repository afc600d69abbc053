import Foundation
import Locking
import Logging
import MQTTTransport
import TelemetryCore

/// Records every message on a topic filter into a capture file (``SessionCapture``), as it
/// arrives: `wearable-sim record`, and usable from tests.
///
/// The recorder subscribes with MQTT 5 "retain as published", so each frame keeps the retain
/// flag its publisher set. To tell the broker's retained store (delivered right after the
/// SUBACK) from live traffic, it then publishes a marker to a private topic it also subscribed
/// to: the broker queues the marker behind the stored messages, so every retained frame before
/// the marker is `stored`. Frames are written to the file as they arrive (one line each), so a
/// killed recorder leaves a readable file without trailer.
public final class CaptureRecorder: @unchecked Sendable {
    /// The header written to the file.
    public let header: SessionCapture.Header
    private let client: MQTTClient
    private let markerTopic: String
    private let lock = MonotonicCondition()
    private let file: FileHandle
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var markerSeen = false
    private var frameCount = 0
    private var writeError: (any Error)?
    private var finished = false

    /// Connects, subscribes to `filter` and starts recording into `output` (created or replaced).
    /// Returns once the subscription is in place: everything published afterwards is recorded.
    /// - Parameters:
    ///   - broker: the broker URL.
    ///   - filter: the topic filter, e.g. `wearables/#`.
    ///   - output: the capture file.
    ///   - configure: changes to the client configuration (credentials, TLS).
    public init(
        broker: String, filter: String = TopicScheme().inboundRootFilter, output: URL, logger: Logger = TestClients.logger,
        configure: (inout MQTTClientConfiguration) -> Void = { _ in }
    ) async throws {
        var configuration = MQTTClientConfiguration(broker: try BrokerURL(parsing: broker), clientID: "wearable-record-\(UUID().uuidString.prefix(8))")
        configuration.retainAsPublished = true
        configure(&configuration)
        header = SessionCapture.Header(broker: broker, filter: filter, startedAt: Date().timeIntervalSince1970)
        guard FileManager.default.createFile(atPath: output.path, contents: try SessionCapture.line(header)) else {
            throw TestFailure("cannot create \(output.path)")
        }
        file = try FileHandle(forWritingTo: output)
        file.seekToEndOfFile()
        markerTopic = "wearable-capture/\(configuration.clientID)/marker"
        start = clock.now
        let box = RecorderBox()
        client = try MQTTClient(configuration: configuration, logger: logger, onMessage: { message in box.recorder?.receive(message) })
        box.recorder = self
        client.start()
        try await client.waitUntilConnected(timeout: 30)
        try await client.subscribe([markerTopic], qos: .exactlyOnce)
        try await client.subscribe([filter], qos: .exactlyOnce)
        try await client.publish(MQTTMessage(topic: markerTopic, string: "", qos: .atLeastOnce))
    }

    /// Frames recorded so far.
    public var count: Int { lock.withLock { frameCount } }

    /// Waits (off the cooperative pool) until `count` frames were recorded.
    /// - Throws: when that takes longer than `timeout` seconds.
    public func waitForFrames(_ count: Int, timeout: Double = 30) async throws {
        try await offPool { () throws(TestFailure) in
            let deadline = SuspendingClock.now + .seconds(timeout)
            try self.lock.withLock { () throws(TestFailure) in
                while self.frameCount < count {
                    if !self.lock.wait(until: deadline), self.frameCount < count {
                        throw TestFailure("recorded \(self.frameCount) of \(count) frames within \(timeout) s")
                    }
                }
            }
        }
    }

    /// Seconds since the recording began.
    public var elapsed: Double { (clock.now - start) / .seconds(1) }

    /// Stops recording, writes the trailer and closes the file.
    /// - Returns: the number of frames recorded.
    /// - Throws: the first error writing the file.
    @discardableResult
    public func finish() async throws -> Int {
        await client.shutdown()
        let (count, error): (Int, (any Error)?) = lock.withLock {
            finished = true
            return (frameCount, writeError)
        }
        if let error { throw error }
        try file.write(contentsOf: SessionCapture.line(SessionCapture.TrailerLine(end: .init(frames: count, duration: elapsed))))
        try file.close()
        return count
    }

    private func receive(_ message: MQTTMessage) {
        let time = elapsed
        lock.withLock {
            guard !finished, writeError == nil else { return }
            if message.topic == markerTopic {
                markerSeen = true
                return
            }
            do {
                try file.write(contentsOf: SessionCapture.line(CapturedFrame(message, time: time, stored: message.retain && !markerSeen)))
                frameCount += 1
                lock.broadcast()
            } catch {
                writeError = error
            }
        }
    }
}

/// Breaks the cycle client → handler → recorder → client (the handler exists before the recorder).
private final class RecorderBox: @unchecked Sendable {
    weak var recorder: CaptureRecorder?
}
