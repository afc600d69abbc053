import Foundation

extension GatewayConfiguration {
    /// Several gateway instances on one fleet (keys under `cluster.*`, docs/scale-out.md).
    public struct Cluster: Sendable {
        /// How instances share the fleet.
        public enum Mode: String, Sendable, CaseIterable {
            /// One gateway: no instance name anywhere, every device processed here.
            case single
            /// Every instance receives every frame and processes the devices rendezvous hashing
            /// assigns it among the live instances (any broker).
            case partitioned
            /// The broker spreads frames over a shared subscription
            /// (`$share/{group}/...`); it must route by publisher for per-device order.
            case shared
        }

        /// How the broker routes shared subscriptions, as the operator states it (`shared` mode
        /// refuses to start without `publisher`).
        public enum SharedRouting: String, Sendable, CaseIterable {
            /// Not stated.
            case unstated
            /// The broker hands all of a publisher's messages to one member of the group (EMQX
            /// `hash_clientid`).
            case publisher
        }

        /// The mode; `single` by default.
        public var mode = Mode.single
        /// The broker's shared-subscription routing (`shared` mode).
        public var sharedRouting = SharedRouting.unstated
        /// This instance's name; nil takes the host name (made topic-safe).
        public var instance: String?
        /// The shared-subscription group (`shared` mode).
        public var group = "wearable-gateway"
        /// Seconds between re-announcements of `gateway/instances/{name}` (the heartbeat).
        public var heartbeatInterval = 1.0
        /// Seconds without an announcement after which an instance counts as gone (a frozen
        /// process whose connection the broker still holds).
        public var expiry = 5.0
        /// Seconds a device's next owner processes its frames without publishing before it takes
        /// over from an instance that is still there (a join, or a leaving instance draining),
        /// so it holds the recent state (swing windows) at the switch; 0 switches at once.
        public var handoverWarmup = 3.0
        /// Devices whose latest context frames (hello, status, authorization, workout, headphone
        /// connection) are kept for a take-over (partitioned mode); the oldest device is dropped
        /// beyond it.
        public var contextDevices = 200_000

        /// Creates the defaults.
        public init() {}

        /// Whether instances are named (any mode but `single`).
        public var isClustered: Bool { mode != .single }

        /// The instance name in force: ``instance`` or the host name made topic-safe.
        public var instanceName: String { instance ?? Self.topicSafe(ProcessInfo.processInfo.hostName) }

        /// Why `name` cannot name an instance (it is a topic level and part of client ids and
        /// file names), or nil when it can: 1–64 of `A–Z a–z 0–9 . _ -`, not starting with a dot.
        public static func nameProblem(_ name: String) -> String? {
            guard !name.isEmpty, name.utf8.count <= 64 else { return "must be 1 to 64 characters, got \(name.utf8.count)" }
            guard name.unicodeScalars.allSatisfy(isAllowed) else { return "may hold only letters, digits, '.', '_' and '-', got '\(name)'" }
            guard !name.hasPrefix(".") else { return "must not start with '.', got '\(name)'" }
            return nil
        }

        /// `text` with every character an instance name may not hold replaced by `-`, cut to 64
        /// characters (`gateway` when nothing is left).
        static func topicSafe(_ text: String) -> String {
            var name = String(String.UnicodeScalarView(text.unicodeScalars.map { isAllowed($0) ? $0 : "-" }).prefix(64))
            while name.hasPrefix(".") { name.removeFirst() }
            return name.isEmpty ? "gateway" : name
        }

        private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
        }

        /// `path` with `-{instance}` inserted before its extension (`data/journal.bin` →
        /// `data/journal-a.bin`) when clustered; unchanged otherwise.
        func instancePath(_ path: String?) -> String? {
            guard isClustered, let path else { return path }
            let url = URL(fileURLWithPath: path)
            let stem = url.deletingPathExtension().lastPathComponent
            let named = url.pathExtension.isEmpty ? "\(stem)-\(instanceName)" : "\(stem)-\(instanceName).\(url.pathExtension)"
            let directory = (path as NSString).deletingLastPathComponent
            return directory.isEmpty ? named : "\(directory)/\(named)"
        }
    }

    /// This configuration with the instance name in the journal, recorder store and device
    /// state store paths (clustered modes), so instances on one host never share a file.
    public func withInstancePaths() -> GatewayConfiguration {
        var configuration = self
        configuration.journal.path = cluster.instancePath(journal.path)
        configuration.recorder.database = cluster.instancePath(recorder.database)
        configuration.state.path = cluster.instancePath(state.path)
        return configuration
    }
}

extension GatewayConfiguration.Cluster {
    /// The `cluster.*` keys: the cluster mode, this instance's name, the shared-subscription
    /// group and the membership timing (docs/scale-out.md).
    static let keys: [ConfigurationKey] = [
        .choice(
            "cluster.mode",
            "single (one gateway), partitioned (instances split devices by rendezvous hashing; any broker) or shared (the broker's shared subscription spreads devices).",
            \.cluster.mode),
        .optionalText(
            "cluster.instance",
            "This instance's name (letters, digits, . _ -; at most 64), unique in the fleet; it joins client ids, journal and recorder file names, metrics labels and gateway/instances/{name}.",
            none: "(host name)", validate: nameProblem, \.cluster.instance
        )
        .checked { configuration in
            let cluster = configuration.cluster
            guard cluster.isClustered, let problem = nameProblem(cluster.instanceName) else { return nil }
            return "the host name does not make an instance name (\(problem)); set cluster.instance"
        }
        .checked { configuration in
            let cluster = configuration.cluster
            return cluster.isClustered && configuration.mqtt.clientID.utf8.count + cluster.instanceName.utf8.count > 100
                ? "mqtt.clientId and cluster.instance together must stay within 100 characters" : nil
        },
        .choice(
            "cluster.sharedRouting",
            "How the broker routes shared subscriptions: shared mode starts only with publisher (every message of a device to one member: EMQX hash_clientid).",
            \.cluster.sharedRouting
        )
        .checked { configuration in
            configuration.cluster.mode == .shared && configuration.cluster.sharedRouting != .publisher
                ? "cluster.mode shared keeps a device's frames together only on a broker that routes shared subscriptions by publisher: state it with cluster.sharedRouting: publisher (EMQX shared_subscription_strategy = hash_clientid), or use cluster.mode partitioned"
                : nil
        },
        .text(
            "cluster.group", "Shared-subscription group of shared mode: the gateway subscribes $share/{group}/{inboundRoot}/+/#.", validate: nameProblem,
            \.cluster.group),
        .number(
            "cluster.heartbeatInterval", "Seconds between re-announcements of gateway/instances/{name} (the heartbeat other instances watch).",
            in: 0.05...3600, \.cluster.heartbeatInterval),
        .number(
            "cluster.expiry",
            "Seconds without an announcement after which an instance counts as gone and its devices move (a frozen process; a dead one leaves at once through its will); an instance whose own announcements did not come back for as long drops what it reads and joins again.",
            in: 0.1...86_400, \.cluster.expiry
        )
        .checked { configuration in
            let cluster = configuration.cluster
            return cluster.isClustered && cluster.expiry < 2 * cluster.heartbeatInterval
                ? "must be at least twice cluster.heartbeatInterval (\(cluster.heartbeatInterval) s), got \(cluster.expiry): one late heartbeat would drop a live instance"
                : nil
        },
        .number(
            "cluster.handoverWarmup",
            "Seconds the next owner of a device processes its frames unpublished before it claims the device from a joining or draining peer, which publishes until that claim is notified (a graceful stop waits as long, then for the claims, at most cluster.expiry); counted on each instance's monotonic clock from when it read the change; 0: switch at once.",
            in: 0...600, \.cluster.handoverWarmup),
        .integer(
            "cluster.contextDevices",
            "Devices whose latest hello/status/authorization/workout/headphone-connection frames are kept to restore a device arriving at this instance (partitioned mode).",
            in: 1...100_000_000, \.cluster.contextDevices),
    ]

    /// Keys that existed once, with why they went: a configuration that still sets one is refused
    /// with this reason, not merely called unknown, so an upgrade says what changed.
    static let removedKeys: [String: String] = [
        "cluster.shareState":
            "removed: device snapshots are no longer shipped between instances as retained messages; clustered modes run on store.backend postgres, whose ownership claims hand each device's snapshot to its next owner (docs/scale-out.md, Fencing). Delete the key",
        "cluster.stateCacheBytes":
            "removed with cluster.shareState: instances no longer keep each other's snapshots in memory; the shared store holds them (docs/scale-out.md, Fencing). Delete the key",
    ]
}
