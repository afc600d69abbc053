import TelemetryCore

/// What claiming a device gave its new owner.
public struct DeviceClaim: Sendable {
    /// The owner's epoch, greater than any the device had before.
    public var epoch: Int64
    /// The device's stored snapshot, which the new owner continues from (nil: none stored).
    public var snapshot: DeviceSnapshot?

    /// Creates a claim.
    public init(epoch: Int64, snapshot: DeviceSnapshot?) {
        self.epoch = epoch
        self.snapshot = snapshot
    }
}
