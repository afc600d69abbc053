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

        /// The mode; `single` by default.
        public var mode = Mode.single
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
        /// connection) are kept for a take-over; the oldest device is dropped beyond it.
        public var contextDevices = 200_000
        /// Whether owners publish device snapshots and new owners restore them (partitioned mode).
        public var shareState = true
        /// Bytes of other instances' snapshots and trail frames kept for take-overs; the least
        /// recently updated device is dropped beyond it.
        public var stateCacheBytes = 268_435_456

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
