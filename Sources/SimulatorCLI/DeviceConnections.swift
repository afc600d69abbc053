import Logging
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation

/// One MQTT connection per simulated device, as real devices have: the client id is the
/// device id and the will publishes the device's status offline (retained).
struct DeviceConnections {
    let clients: [String: MQTTClient]
    /// The encoding of the high-rate streams (``SimulatedFrame/encoded(as:)``).
    let encoding: PayloadEncoding

    init(devices: [SimulatedDevice], options: ConnectionOptions, encoding: PayloadEncoding = .json, logger: Logger) throws {
        self.encoding = encoding
        try OpenFileLimit.ensureRoom(forConnections: devices.count)
        var clients: [String: MQTTClient] = [:]
        for device in devices {
            let will = MQTTMessage(
                topic: TopicScheme(inboundRoot: options.root).inboundTopic(rawDevice: device.id, path: InboundStream.status.rawValue), string: #"{"state":"offline"}"#, qos: .atLeastOnce, retain: true)
            let client = try MQTTClient(configuration: try options.configuration(clientID: device.id, will: will), logger: logger)
            client.start()
            clients[device.id] = client
        }
        self.clients = clients
    }

    func waitUntilConnected(timeout: Double) async throws {
        for client in clients.values { try await client.waitUntilConnected(timeout: timeout) }
    }

    /// Publishes a frame on its device's connection, waiting for an in-flight slot.
    func send(_ frame: SimulatedFrame, root: String) async throws {
        guard let client = clients[frame.deviceId] else { return }
        let frame = frame.encoded(as: encoding)
        try await client.send(
            MQTTMessage(
                topic: frame.topic(root: root), payload: frame.payload, qos: frame.qos,
                retain: frame.retain, properties: MQTTProperties(contentType: frame.encoding.mediaType)))
    }

    /// Marks every device offline (retained), waits for the acknowledgements, disconnects.
    func finish(root: String, date: Double) async {
        let scheme = TopicScheme(inboundRoot: root)
        for (id, client) in clients {
            try? await client.send(
                MQTTMessage(
                    topic: scheme.inboundTopic(rawDevice: id, path: InboundStream.status.rawValue), string: #"{"state":"offline","date":\#(date)}"#, qos: .atLeastOnce, retain: true))
        }
        for client in clients.values {
            _ = await client.flush(timeout: 10)
            await client.shutdown()
        }
    }

    var statistics: (acknowledged: UInt64, failed: UInt64) {
        clients.values.reduce((0, 0)) { total, client in
            let statistics = client.statistics
            return (total.0 + statistics.publishesAcknowledged, total.1 + statistics.publishesFailed)
        }
    }
}
