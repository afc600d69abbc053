import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation

extension GatewayRun {
    /// The outbound topic of one device's derived stream, e.g. `gateway/watch-s9-1/swing`.
    /// - Parameters:
    ///   - leaf: the stream below the device, e.g. `swing`, `tennis/stroke`, `depth-state`.
    ///   - device: the device id.
    public func topic(_ leaf: String, device: String) -> String {
        configuration.topics.scheme.outboundTopic(rawDevice: device, path: leaf)
    }

    /// Publishes one message on the observer's connection and waits for the broker's
    /// acknowledgement (QoS 1 and 2).
    public func publish(_ message: MQTTMessage) async throws {
        try await observer.publish(message)
    }

    /// Publishes simulator frames (``TrafficGenerator``, ``DiveScenario/frames(startDate:)``,
    /// ``RunScenario/frames(startDate:)``, ``HeadphoneScenario/frames`` …) in order, as fast as
    /// the broker takes them, on the observer's connection, and waits until every one was
    /// acknowledged. Derivations use the frames' timestamps, not arrival times, so publishing
    /// faster than real time derives the same events.
    /// - Parameters:
    ///   - frames: the frames.
    ///   - encoding: `.protobuf` sends the high-rate streams in the binary encoding.
    /// - Throws: when a publish fails or the acknowledgements take longer than `timeout`.
    public func publish(_ frames: [SimulatedFrame], encoding: PayloadEncoding = .json, timeout: Double = 120) async throws {
        let scheme = configuration.topics.scheme
        for frame in frames {
            let frame = frame.encoded(as: encoding)
            try await observer.send(
                MQTTMessage(
                    topic: frame.topic(in: scheme), payload: frame.payload, qos: frame.qos,
                    retain: frame.retain, properties: MQTTProperties(contentType: frame.encoding.mediaType)))
        }
        guard await observer.flush(timeout: timeout) else {
            throw TestFailure("\(frames.count) frames were not acknowledged within \(timeout) s")
        }
    }

    /// Replays a recorded session (``SessionCapture/read(from:)``) into the gateway's broker on
    /// the observer's connection, with optional seeded faults, and waits until the broker
    /// acknowledged every frame.
    /// - Parameters:
    ///   - capture: the session.
    ///   - speed: 1 keeps the recorded timing, 0 (default) sends as fast as the broker takes it.
    ///   - faults: faults to inject.
    /// - Returns: what was sent, with the report of what was injected.
    @discardableResult
    public func replay(_ capture: SessionCapture, speed: Double = 0, faults: FaultPlan = .none) async throws -> ReplaySchedule {
        let schedule = faults.schedule(capture.frames)
        try await CaptureReplayer.play(schedule, on: observer, speed: speed)
        return schedule
    }

    /// The derived events received so far on `leaf`, of one device or (nil) of every device.
    public func events(_ leaf: String, device: String? = nil) -> [MQTTMessage] {
        collector.messages.filter { matches($0.topic, leaf: leaf, device: device) }
    }

    /// Waits until `count` events on `leaf` satisfying `predicate` arrived.
    ///
    /// On timeout the error lists what did arrive on that leaf (payloads) and per topic, so a
    /// failing test shows how the gateway's output differed.
    /// - Returns: the matching events, in arrival order.
    @discardableResult
    public func waitForEvents(
        _ leaf: String, device: String? = nil, count: Int = 1, timeout: Double = 30,
        where predicate: @escaping @Sendable ([String: Any]) -> Bool = { _ in true }
    ) async throws -> [MQTTMessage] {
        let matching: @Sendable ([MQTTMessage]) -> [MQTTMessage] = { [self] messages in
            messages.filter { matches($0.topic, leaf: leaf, device: device) && predicate($0.jsonObject ?? [:]) }
        }
        do {
            return matching(try await collector.wait(timeout: timeout, "\(count) '\(leaf)' events") { matching($0).count >= count })
        } catch let failure as TestFailure {
            let onLeaf = events(leaf, device: device)
            let shown = onLeaf.suffix(10).map { "  \($0.topic) \($0.payloadString.prefix(300))" }.joined(separator: "\n")
            throw TestFailure(
                "\(failure.description)\n\(matching(onLeaf).count) of \(onLeaf.count) '\(leaf)' events matched; the last ones:\n\(shown.isEmpty ? "  (none)" : shown)")
        }
    }

    /// The identities of the derived events received so far on these leaves (every device).
    /// - Parameter leaves: e.g. `["swing", "tennis/stroke", "depth-state", "dive"]`.
    public func eventKeys(_ leaves: [String]) -> Set<DerivedEventKey> {
        Set(collector.messages.filter { message in leaves.contains { matches(message.topic, leaf: $0, device: nil) } }.compactMap(DerivedEventKey.init))
    }

    /// Stops the gateway (draining its queues) and waits for its offline status, which it
    /// publishes after every derived event: afterwards ``collector`` holds the complete output.
    /// - Returns: everything the gateway published.
    @discardableResult
    public func stopAndCollect(timeout: Double = 30) async throws -> [MQTTMessage] {
        try await gateway.stop()
        let status = configuration.topics.scheme.statusTopic
        let messages = try await collector.wait(timeout: timeout, "\(status) offline") { messages in
            messages.contains { $0.topic == status && $0.payloadString.contains("\"offline\"") }
        }
        await observer.shutdown()
        return messages
    }

    private func matches(_ topic: String, leaf: String, device: String?) -> Bool {
        let root = configuration.topics.outboundRoot + "/"
        guard topic.hasPrefix(root), topic.hasSuffix("/" + leaf) else { return false }
        let middle = topic.dropFirst(root.count).dropLast(leaf.count + 1)
        return device.map { middle == $0 } ?? (!middle.isEmpty && !middle.contains("/"))
    }
}
