import TelemetryCore

/// The ownership of `cluster.mode: single`: one instance owns every device, under epoch 0, for
/// ever. No store, no heartbeat, no change.
public struct SoleOwner: OwnershipPort {
    /// The only owner.
    public init() {}

    public var partitions: OwnershipPartitions { OwnershipPartitions() }
    public func role(of device: some StringProtocol) -> DeviceRole { .owner(epoch: 0) }
    public func visible(_ messages: [OutboundMessage], receivedAs role: DeviceRole?) -> [OutboundMessage] { messages }
    public func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void) {}
    public var status: OwnershipStatus { .sole }
    public func statusUpdates() -> AsyncStream<OwnershipStatus> {
        // Never changes: the one status, then the stream ends.
        AsyncStream { continuation in
            continuation.yield(.sole)
            continuation.finish()
        }
    }
    public func prepared(_ partitions: [Int], subscribed: @escaping @Sendable (Int) -> Bool) {}
    public func run() async throws {}
    public func leave(within seconds: Double) async {}
    public func subscriberChanged(_ change: SubscriberConnectivity) {}
}
