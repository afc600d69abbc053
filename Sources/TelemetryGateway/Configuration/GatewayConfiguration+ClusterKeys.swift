extension GatewayConfiguration {
    /// Keys of scale-out: the cluster mode, this instance's name, the shared-subscription group
    /// and the membership timing (docs/scale-out.md).
    static let clusterKeys: [ConfigurationKey] = [
        .text(
            "cluster.mode",
            "single (one gateway), partitioned (instances split devices by rendezvous hashing; any broker) or shared (the broker's shared subscription spreads devices).",
            default: "single",
            validate: { Cluster.Mode(rawValue: $0.lowercased()) == nil ? "must be single, partitioned or shared, got '\($0)'" : nil }
        ) { configuration, text in
            configuration.cluster.mode = text.flatMap { Cluster.Mode(rawValue: $0.lowercased()) } ?? .single
        },
        .text(
            "cluster.instance",
            "This instance's name (letters, digits, . _ -; at most 64), unique in the fleet; it joins client ids, journal and recorder file names, metrics labels and gateway/instances/{name}.",
            default: "(host name)",
            validate: { Cluster.nameProblem($0) }
        ) { $0.cluster.instance = $1 },
        .text(
            "cluster.group", "Shared-subscription group of shared mode: the gateway subscribes $share/{group}/{inboundRoot}/+/#.", default: "wearable-gateway",
            validate: { Cluster.nameProblem($0) }
        ) { $0.cluster.group = $1 ?? "wearable-gateway" },
        .number(
            "cluster.heartbeatInterval", "Seconds between re-announcements of gateway/instances/{name} (the heartbeat other instances watch).", default: 1,
            in: 0.05...3600
        ) { $0.cluster.heartbeatInterval = $1 },
        .number(
            "cluster.expiry",
            "Seconds without an announcement after which an instance counts as gone and its devices move (a frozen process; a dead one leaves at once through its will); an instance whose own announcements did not come back for as long drops what it reads and joins again.",
            default: 5, in: 0.1...86_400
        ) { $0.cluster.expiry = $1 },
        .number(
            "cluster.handoverWarmup",
            "Seconds the next owner of a device processes its frames unpublished before taking over from a joining or draining peer (and a graceful stop waits); 0: switch at once.",
            default: 3, in: 0...600
        ) { $0.cluster.handoverWarmup = $1 },
        .integer(
            "cluster.contextDevices", "Devices whose latest hello/status/authorization/workout/headphone-connection frames are kept to restore a device arriving at this instance (clustered modes).",
            default: 200_000, in: 1...100_000_000
        ) { $0.cluster.contextDevices = $1 },
        .flag(
            "cluster.shareState",
            "Partitioned mode: owners publish device snapshots (retained, gateway/cluster/state/{id}) and a device's new owner restores them, so open dives, stroke counts, pose references and run timelines survive a hand-over.",
            default: true
        ) { $0.cluster.shareState = $1 },
        .integer(
            "cluster.stateCacheBytes",
            "Bytes of other instances' device snapshots (and the frames received after them) kept for take-overs; the least recently updated device is dropped beyond it (gateway_cluster_state_dropped_total).",
            default: 268_435_456, in: 1_048_576...1_099_511_627_776
        ) { $0.cluster.stateCacheBytes = $1 },
    ]

    /// Checks of these keys against others; each names the key to change.
    func clusterIssues() -> [ConfigurationIssue] {
        var issues: [ConfigurationIssue] = []
        if cluster.isClustered, cluster.expiry < 2 * cluster.heartbeatInterval {
            issues.append(
                .init(
                    key: "cluster.expiry", source: "configuration",
                    message: "must be at least twice cluster.heartbeatInterval (\(cluster.heartbeatInterval) s), got \(cluster.expiry): one late heartbeat would drop a live instance"))
        }
        if cluster.isClustered, let problem = Cluster.nameProblem(cluster.instanceName) {
            issues.append(.init(key: "cluster.instance", source: "configuration", message: "the host name does not make an instance name (\(problem)); set cluster.instance"))
        }
        if cluster.isClustered, mqtt.clientID.utf8.count + cluster.instanceName.utf8.count > 100 {
            issues.append(.init(key: "cluster.instance", source: "configuration", message: "mqtt.clientId and cluster.instance together must stay within 100 characters"))
        }
        return issues
    }
}
