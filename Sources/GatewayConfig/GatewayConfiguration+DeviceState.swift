extension GatewayConfiguration {
    /// Device state kept across restarts and evictions (keys under `state.*`, docs/reliability.md).
    public struct DeviceState: Sendable {
        /// The SQLite file of device snapshots; nil keeps state in memory only (a restart
        /// forgets open dives, sessions and pose references, and evicted devices start fresh).
        public var path: String? = "data/state.sqlite"
        /// Seconds between snapshot writes of a shard's changed devices. Frames that changed
        /// a snapshot stay in the journal until it is written, so a longer interval costs
        /// journal space and replay time after a crash, never state.
        public var snapshotInterval = 0.5
        /// Seconds without an accepted frame after which a device's state leaves memory (its
        /// snapshot stays in the store and comes back with its next frame).
        public var idleEviction = 3600.0
        /// The most devices with state in memory; beyond it the least recently active are evicted.
        public var maximumResidentDevices = 100_000
        /// Seconds a stored snapshot is kept after the device was last seen.
        public var retention = 2_592_000.0

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.DeviceState {
    /// The `state.*` keys: the device state store and eviction.
    package static let keys: [ConfigurationKey] = [
        .optionalText(
            "state.path",
            "SQLite file of device snapshots (open dive, session, pose reference, run timeline) restored after a restart or an eviction; null: memory only.",
            \.state.path),
        .number(
            "state.snapshotInterval",
            "Seconds between snapshot writes of changed devices; frames whose effect lives in a snapshot stay in the journal until then, or until the journal passes its high-water mark (replayed after a crash).",
            in: 0.1...3600, \.state.snapshotInterval),
        .number(
            "state.idleEviction", "Seconds without an accepted frame after which a device's state leaves memory (its snapshot stays in the store).",
            in: 1...31_536_000, \.state.idleEviction),
        .integer(
            "state.maxResidentDevices", "Most devices with state in memory; beyond it the least recently active are evicted (gateway_devices_evicted_total).",
            in: 1...100_000_000, \.state.maximumResidentDevices),
        .number("state.retention", "Seconds a stored snapshot is kept after its device was last seen.", in: 60...315_360_000, \.state.retention),
    ]
}
