import Foundation

extension GatewayConfiguration {
    /// Several gateway instances on one fleet (keys under `cluster.*`, docs/scale-out.md).
    public struct Cluster: Sendable {
        /// How instances share the fleet.
        public enum Mode: String, Sendable, CaseIterable {
            /// One gateway: no instance name anywhere, every device processed here.
            case single
            /// Instances lease ownership partitions of the device ids in the shared store and
            /// each receives the devices of the partitions it holds (any broker).
            case partitioned
            /// Removed: the broker spreading devices over a shared subscription. Refused by the
            /// configuration with the reason (docs/scale-out.md, *Ownership*).
            case shared
        }

        /// The mode; `single` by default.
        public var mode = Mode.single
        /// This instance's name; nil takes the host name (made topic-safe).
        public var instance: String?
        /// The shared-subscription group recorder queries are spread over (any instance answers
        /// from the shared store).
        public var group = "wearable-gateway"
        /// Seconds between heartbeats: one statement renews the instance's row and every lease
        /// it holds, and the instance reads the store's view.
        public var heartbeatInterval = 1.0
        /// Seconds a lease and an instance row live after their last renewal: a dead instance's
        /// partitions are taken over after at most this plus one heartbeat; a cut shorter than
        /// it moves nothing.
        public var leaseTime = 6.0
        /// Seconds a partition's next holder processes its devices' frames without publishing
        /// before it takes the partition from a live holder (a join, or a graceful stop), so it
        /// holds the recent state (swing windows) at the switch; 0 switches at once.
        public var handoverWarmup = 3.0

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
        package static func topicSafe(_ text: String) -> String {
            var name = String(String.UnicodeScalarView(text.unicodeScalars.map { isAllowed($0) ? $0 : "-" }).prefix(64))
            while name.hasPrefix(".") { name.removeFirst() }
            return name.isEmpty ? "gateway" : name
        }

        private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
        }

        /// What joins an adopter's name to a dead instance's in the name its stand-in's files
        /// take (``instancePath(_:)`` of `gw-a-stand-in-gw-b`: `data/journal-gw-a-stand-in-gw-b.bin`).
        package static let standInInfix = "-stand-in-"

        /// `path` with `-{instance}` inserted before its extension (`data/journal.bin` →
        /// `data/journal-a.bin`) when clustered; unchanged otherwise.
        package func instancePath(_ path: String?) -> String? {
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
    /// Seconds a clustered subscriber's session outlives a lost connection, in whole seconds:
    /// long enough for a dead instance's stand-in to resume it (the lease time, the adoption
    /// window and a lease time more to start), so the frames it queued are processed, and for
    /// an instance cut from the broker, which renews half a lease time longer before it is taken
    /// for dead. Its stand-in, or any graceful stop, ends it.
    package var subscriberSessionExpiry: UInt32 { UInt32((2.5 * leaseTime + adoptionWindow).rounded(.up)) }

    /// Seconds after a dead instance's row expired during which another instance may adopt it
    /// (two heartbeats: every live instance tries at each of its own); its partitions are taken
    /// only after it, if nobody did.
    package var adoptionWindow: Double { 2 * heartbeatInterval }

    /// The `cluster.*` keys: the cluster mode, this instance's name, the shared-subscription
    /// group and the membership timing (docs/scale-out.md).
    package static let keys: [ConfigurationKey] = [
        .choice(
            "cluster.mode",
            "single (one gateway) or partitioned (instances lease ownership partitions of the device ids in the shared PostgreSQL store; any broker). shared is refused (removed).",
            \.cluster.mode
        )
        .checked { configuration in
            configuration.cluster.mode == .shared
                ? "shared was removed: ownership now rests on partition leases in the shared store, which a broker choosing the instance per message would contradict; use cluster.mode partitioned, which works on every broker (docs/scale-out.md, Ownership)"
                : nil
        },
        .optionalText(
            "cluster.instance",
            "This instance's name (letters, digits, . _ -; at most 64), unique in the fleet; it joins client ids, journal and recorder file names, metrics labels, gateway/instances/{name} and the store's instance row.",
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
        .text(
            "cluster.group", "Shared-subscription group recorder queries are spread over ($share/{group}/…): any instance answers from the shared store.",
            validate: nameProblem, \.cluster.group),
        .number(
            "cluster.heartbeatInterval",
            "Seconds between heartbeats to the store: one statement renews the instance's row and every lease it holds, then the instance reads who is live and what is offered.",
            in: 0.05...3600, \.cluster.heartbeatInterval),
        .number(
            "cluster.leaseTime",
            "Seconds a lease and an instance row live after their last renewal, judged by the store's clock: a dead instance's partitions are taken over after at most this plus one heartbeat, and a cut from the store shorter than it moves nothing.",
            in: 0.2...86_400, \.cluster.leaseTime
        )
        .checked { configuration in
            let cluster = configuration.cluster
            return cluster.isClustered && cluster.leaseTime < 3 * cluster.heartbeatInterval
                ? "must be at least three times cluster.heartbeatInterval (\(cluster.heartbeatInterval) s), got \(cluster.leaseTime): one slow heartbeat would let the leases run out"
                : nil
        },
        .number(
            "cluster.handoverWarmup",
            "Seconds the next holder of a partition processes its devices' frames unpublished before it takes the partition from a live holder (a join or a graceful stop), which publishes until then; counted on the next holder's monotonic clock; 0: switch at once.",
            in: 0...600, \.cluster.handoverWarmup),
    ]

    /// Keys that existed once, with why they went: a configuration that still sets one is refused
    /// with this reason, not merely called unknown, so an upgrade says what changed.
    package static let removedKeys: [String: String] = [
        "cluster.expiry":
            "removed: instances no longer watch each other's announcements; an instance's liveness is its lease in the shared store (cluster.leaseTime). Delete the key",
        "cluster.contextDevices":
            "removed: a gained partition's devices and their state are read from the shared store, so no instance keeps context frames of devices it does not own. Delete the key",
        "cluster.sharedRouting":
            "removed with cluster.mode shared (docs/scale-out.md, Ownership). Delete the key",
        "cluster.shareState":
            "removed: device snapshots are no longer shipped between instances as retained messages; clustered instances run on store.backend postgres, where each device's snapshot is written under its partition's lease for the next holder (docs/scale-out.md, Ownership on partition leases). Delete the key",
        "cluster.stateCacheBytes":
            "removed with cluster.shareState: instances no longer keep each other's snapshots in memory; the shared store holds them (docs/scale-out.md, Ownership on partition leases). Delete the key",
    ]
}
