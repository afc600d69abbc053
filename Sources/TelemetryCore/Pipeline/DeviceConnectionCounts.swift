/// How many devices with state are in each connection state (the `gateway_devices` gauge).
public struct DeviceConnectionCounts: Sendable, Equatable {
    /// Devices whose bridge last said `online` (`gateway/{id}/connection` state `connected`).
    public var connected: Int
    /// Devices whose bridge last said `offline`, or whose will did.
    public var disconnected: Int
    /// Devices with state but no `status` seen (or none remembered).
    public var unknown: Int

    /// Creates counts.
    /// - Parameters:
    ///   - connected: devices connected.
    ///   - disconnected: devices disconnected.
    ///   - unknown: devices without a known connection state.
    public init(connected: Int, disconnected: Int, unknown: Int) {
        self.connected = connected
        self.disconnected = disconnected
        self.unknown = unknown
    }
}
