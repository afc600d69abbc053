/// The ownership of `cluster.mode: single`: one instance owns every device, under epoch 0, for
/// ever. No store, no heartbeat, no change.
public struct SoleOwner: OwnershipPort {
    /// The only owner.
    public init() {}

    public func role(of device: some StringProtocol) -> DeviceRole { .owner(epoch: 0) }
    public func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void) {}
    public func run() async throws {}
    public func leave() async {}
}
