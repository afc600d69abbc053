import CoreMetrics
import Foundation
import MQTTTransport
import TelemetryCore

/// The clustered modes' shared parts: this instance's identity, the membership view, the
/// ownership gate (partitioned mode) and the context copies. Device snapshots are handed over
/// by the shared store (its claims), not here.
final class ClusterRuntime: Sendable {
    let mode: GatewayConfiguration.Cluster.Mode
    let instance: String
    let view: ClusterView
    /// Who processes what (partitioned), and the context kept for devices arriving here.
    let gate: OwnershipGate
    let metrics: ClusterMetrics
    let status: InstanceStatusMessage
    /// The topic layout the cluster's topics come from.
    let scheme: TopicScheme
    /// `{outboundRoot}/instances/+`: every instance's announcement.
    let instancesFilter: String
    /// `{outboundRoot}/cluster/context/`: prefix of the context copies.
    let contextPrefix: String
    /// Owned context frames to copy, retained, for instances that join later.
    let replicas: AsyncStream<MQTTMessage>
    private let replicaSink: AsyncStream<MQTTMessage>.Continuation
    /// Whether any instance answers any device's recorder query (a store the instances share;
    /// the query filter is then `$share`d, so one instance gets each).
    let answersAnyQuery: Bool
    /// Partitioned mode: the owned devices' subscriptions (nil in shared mode).
    let subscriptions: DeviceSubscriptions?
    /// Seconds after which a fenced device that this instance's plan still gives it is claimed
    /// again: long enough for the instances' plans to agree (an expired member that came back is
    /// through its warm-up), so two instances never take a device from each other in turn.
    let reclaimDelay: Double
    /// Whether a device's new owner restores the snapshot the store hands over with its claim:
    /// false only in the hand-over control run (`WG_FAULT_HANDOVER_STATE_OFF=1`).
    let restoresHandedOverState = ProcessInfo.processInfo.environment["WG_FAULT_HANDOVER_STATE_OFF"] != "1"

    init(configuration: GatewayConfiguration, scheme: TopicScheme, metrics: ClusterMetrics, startedAt: Double) {
        mode = configuration.cluster.mode
        instance = configuration.cluster.instanceName
        self.metrics = metrics
        reclaimDelay = configuration.cluster.expiry + configuration.cluster.handoverWarmup + 2 * configuration.state.snapshotInterval
        view = ClusterView(
            me: instance, expiry: configuration.cluster.expiry, warmup: configuration.cluster.handoverWarmup, metrics: metrics,
            checksSelf: ProcessInfo.processInfo.environment["WG_FAULT_SELF_EXPIRY_OFF"] != "1")
        gate = OwnershipGate(
            view: view, scheme: scheme, contextDevices: configuration.cluster.contextDevices, metrics: metrics, ownsEverything: mode == .shared)
        self.scheme = scheme
        answersAnyQuery = configuration.sharesRecorderStore
        subscriptions =
            mode == .partitioned ? DeviceSubscriptions(view: view, scheme: scheme, metrics: metrics, limit: configuration.cluster.contextDevices) : nil
        status = InstanceStatusMessage(
            scheme: scheme, instance: instance, mode: mode.rawValue, startedAt: startedAt,
            incarnation: String(UUID().uuidString.prefix(8)))
        instancesFilter = scheme.instancesFilter
        contextPrefix = scheme.clusterContextPrefix
        (replicas, replicaSink) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .bufferingNewest(65_536))
    }

    /// Queues a copy of an owned context frame (`{outboundRoot}/cluster/context/{id}/{stream}`,
    /// retained, the original payload; `retained` and `receivedAt` as user properties).
    func replicate(_ frame: InboundFrame, key: Substring, stream: InboundStream) {
        var properties = MQTTProperties(contentType: frame.contentType)
        properties.userProperties = [.init(name: "retained", value: frame.retained ? "true" : "false"), .init(name: "receivedAt", value: "\(frame.receivedAt)")]
        replicaSink.yield(
            MQTTMessage(.clusterContext(device: key, stream: stream), in: scheme, payload: frame.payload, properties: properties))
    }

    /// Takes a context copy another instance published.
    func receiveReplica(_ message: MQTTMessage) {
        guard !message.payload.isEmpty, let (level, stream) = scheme.parseClusterContext(message.topic), ContextCache.streams.contains(stream) else {
            return
        }
        let device = String(level)
        let user = Dictionary(message.properties.userProperties.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        let frame = InboundFrame(
            topic: scheme.inboundTopic(rawDevice: device, path: stream.rawValue), payload: message.payload, contentType: message.properties.contentType,
            retained: user["retained"] == "true", receivedAt: user["receivedAt"].flatMap(Double.init) ?? Date().timeIntervalSince1970)
        gate.keepReplica(frame, device: device, stream: stream)
    }

    func finishReplicas() { replicaSink.finish() }
}
