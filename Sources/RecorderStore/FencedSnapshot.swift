import TelemetryCore

/// A snapshot to store only if its writer still owns the device under `epoch`.
public struct FencedSnapshot: Sendable {
    /// The device.
    public var device: DeviceID
    /// The epoch the writer's claim returned.
    public var epoch: Int64
    /// The device's state.
    public var snapshot: DeviceSnapshot

    /// Creates a fenced write.
    public init(device: DeviceID, epoch: Int64, snapshot: DeviceSnapshot) {
        self.device = device
        self.epoch = epoch
        self.snapshot = snapshot
    }
}
