/// Who owns a device in the store, and under which epoch.
public struct DeviceOwnership: Sendable, Equatable {
    /// The owning instance (`cluster.instance`; empty for writes made without a claim).
    public var instance: String
    /// The owner's epoch: strictly increasing per device, decided by the store.
    public var epoch: Int64

    /// Creates an ownership.
    public init(instance: String, epoch: Int64) {
        self.instance = instance
        self.epoch = epoch
    }
}
