/// What the subscriber's connection to the broker did, as the clustered ownership needs it
/// (``OwnershipPort/subscriberChanged(_:)``).
public enum SubscriberConnectivity: Sendable, Equatable {
    /// Connected (a CONNACK).
    case connected
    /// Trying, in vain: the connection ended or an attempt failed, and the client retries.
    case unreachable
    /// Not trying: this run holds its reconnection itself (adopted, or past its deadline for
    /// want of the store), so the broker is not what it waits for.
    case held
}
