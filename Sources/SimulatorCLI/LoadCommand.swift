import ArgumentParser
import Foundation
import Logging
import MQTTTransport
import TelemetryCore
import TelemetrySimulation
import WearableGatewayTesting

/// `wearable-sim load`: the end-to-end load tool. Publishes pre-generated traffic as fast as
/// the broker takes it and measures, through the gateway's own `gateway/metrics`, how fast the
/// gateway consumed it.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Measure end-to-end throughput: publish N device-seconds of traffic at full speed, read the gateway's counters.",
        discussion: """
            Generates --seconds of traffic for --devices devices (same generator as `publish`), publishes it at QoS 1 \
            over --connections shared connections as fast as the in-flight window allows, then waits until the \
            gateway's gateway_messages_received_total (read from the retained <outbound>/metrics topic) has grown by \
            the number of frames sent. Run the gateway with a short metrics.publishInterval (e.g. --set \
            metrics.publishInterval=0.5). Shared connections ignore per-device ACLs: use an open test broker.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Number of simulated devices.")
    var devices: Int = 50

    @Option(help: "Simulated seconds of traffic per device.")
    var seconds: Int = 10

    @Option(help: "Publishing connections.")
    var connections: Int = 4

    @Option(help: "Only these streams (comma separated, e.g. batched/accelerometer,batched/device-motion); default all.")
    var streams: String?

    @Option(help: "Gateway outbound root (where gateway/metrics is read).")
    var outboundRoot: String = TopicScheme.defaultOutboundRoot

    @Option(help: "Seconds to wait for the gateway to catch up.")
    var timeout: Double = 120

    @Option(help: "Seed.")
    var seed: UInt64 = 1

    @Option(help: EncodingOption.help)
    var encoding: EncodingOption = .json

    @Option(help: JSONStyleOption.help)
    var jsonStyle: JSONStyleOption = .tidy

    func run() async throws {
        let logger = try connection.makeLogger()
        let allowed = streams.map { Set($0.split(separator: ",").map(String.init)) }
        logger.info("generating \(seconds) s of traffic for \(devices) devices…")
        var generator = TrafficGenerator(seed: seed, deviceCount: devices, startDate: Date().timeIntervalSince1970)
        let frames = generator.advance(to: Double(seconds)).filter { !$0.retain && (allowed?.contains($0.stream) ?? true) }
            .map { $0.styled(jsonStyle.style).encoded(as: encoding.encoding) }
        let bytes = frames.reduce(0) { $0 + $1.payload.count }
        // What a subscriber of every frame receives: topics and payloads (Benchmarks/scale-out.py).
        let wireBytes = frames.reduce(0) { $0 + $1.payload.count + $1.topic(root: connection.root).utf8.count }
        let perStream = Dictionary(grouping: frames, by: \.stream).mapValues(\.count)
        logger.info("\(frames.count) frames, \(bytes / 1_048_576) MiB: \(perStream.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        print("fleet bytes       \(wireBytes) (topics and payloads of \(frames.count) frames)")

        let metrics = MetricsWatcher()
        let observer = try MQTTClient(
            configuration: try connection.configuration(clientID: "wearable-load-observer-\(UUID().uuidString.prefix(6))", will: nil),
            logger: logger, onMessage: metrics.handler)
        observer.start()
        try await observer.waitUntilConnected(timeout: 30)
        try await observer.subscribe([TopicScheme(outboundRoot: outboundRoot).metricsTopic], qos: .atLeastOnce)
        let baseline = try await metrics.nextValue(after: nil, timeout: 30)
        logger.info("gateway has received \(Int(baseline)) messages so far")

        var publishers: [MQTTClient] = []
        for index in 0..<max(1, connections) {
            let client = try MQTTClient(
                configuration: try connection.configuration(clientID: "wearable-load-\(index)-\(UUID().uuidString.prefix(6))", will: nil), logger: logger)
            client.start()
            try await client.waitUntilConnected(timeout: 30)
            publishers.append(client)
        }
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, client) in publishers.enumerated() {
                let root = connection.root
                let share = stride(from: index, to: frames.count, by: publishers.count).map { frames[$0] }
                group.addTask {
                    for frame in share {
                        try await client.send(
                            MQTTMessage(
                                topic: frame.topic(root: root), payload: frame.payload, qos: .atLeastOnce,
                                properties: .init(contentType: frame.encoding.mediaType)))
                    }
                    _ = await client.flush(timeout: 300)
                }
            }
            try await group.waitForAll()
        }
        let published = (clock.now - start) / .seconds(1)
        let target = baseline + Double(frames.count)
        logger.info("published and acknowledged in \(String(format: "%.2f", published)) s; waiting for the gateway to count \(Int(target))…")
        let finalValue = try await metrics.waitUntil(atLeast: target, timeout: timeout)
        let endToEnd = (clock.now - start) / .seconds(1)
        let report = """
            frames            \(frames.count) (\(bytes / 1_048_576) MiB)
            publish           \(String(format: "%.0f", Double(frames.count) / published)) frames/s, \(String(format: "%.1f", Double(bytes) / published / 1_048_576)) MiB/s
            end to end        \(String(format: "%.0f", Double(frames.count) / endToEnd)) frames/s, \(String(format: "%.1f", Double(bytes) / endToEnd / 1_048_576)) MiB/s (\(String(format: "%.2f", endToEnd)) s, resolution = gateway metrics interval)
            gateway counted   \(Int(finalValue - baseline)) of \(frames.count)
            """
        print(report)
        for client in publishers { await client.shutdown() }
        await observer.shutdown()
        if finalValue - baseline < Double(frames.count) { throw ExitCode(1) }
    }
}

/// Follows `gateway_messages_received_total` on the retained metrics topic.
final class MetricsWatcher: Sendable {
    /// The latest count.
    private let latest = WatchedState<Double?>(nil)

    var handler: MQTTClient.MessageHandler {
        { [latest] message in
            let text = String(decoding: message.payload, as: UTF8.self)
            let value = text.split(separator: "\n").first { $0.hasPrefix("gateway_messages_received_total ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
            if let value { latest.update { $0 = value } }
        }
    }

    func nextValue(after: Double?, timeout: Double) async throws -> Double {
        try await waitUntil(timeout: timeout, "the gateway's metrics (is the gateway running with metrics.publishInterval > 0?)") { $0 }
    }

    func waitUntil(atLeast target: Double, timeout: Double) async throws -> Double {
        do {
            return try await waitUntil(timeout: timeout, "the gateway to count \(Int(target)) messages") { latest in
                latest.flatMap { $0 >= target ? $0 : nil }
            }
        } catch {
            let last = latest.value
            FileHandle.standardError.write(Data("timed out; last count \(last.map { Int($0) } ?? -1)\n".utf8))
            return last ?? 0
        }
    }

    private func waitUntil(timeout: Double, _ what: String, _ check: @escaping @Sendable (Double?) -> Double?) async throws -> Double {
        guard let value = await latest.wait(timeout: timeout, until: check) else {
            throw ValidationError("timed out after \(timeout) s waiting for \(what)")
        }
        return value
    }
}
