/// Where a recorder query came from, read from its topic
/// `<outboundRoot>/{device}/recorder/query/{requester}`.
public struct RecorderQueryAddress: Sendable, Equatable {
    /// The device whose history is asked for.
    public var device: DeviceID
    /// Everything after `recorder/query/`: the requester's user name when the topic is well
    /// formed (the broker ACL proves it); nil when the topic has no such level.
    public var requester: String?

    /// Creates an address.
    public init(device: DeviceID, requester: String?) {
        self.device = device
        self.requester = requester
    }
}
