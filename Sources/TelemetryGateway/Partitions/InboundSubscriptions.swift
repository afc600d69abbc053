import MQTTTransport
import Ownership
import TelemetryCore

/// How the subscriber connection receives device frames: the whole fleet through one filter
/// (``FleetSubscription``, single mode), or device by device for the partitions this instance
/// holds or warms up (``PartitionSubscriptions``, clustered). The router and the ownership
/// service ask it; neither asks which one it is.
protocol InboundSubscriptions: Sendable {
    /// The subscription options of the subscriber's own filters (identifier, retain handling).
    var filterOptions: SubscriptionOptions { get }
    /// The subscriber connection exists (before it connects): subscriptions go through it.
    func attach(_ connection: any InboundConnection)
    /// Whether a message is the subscriptions' own, not a frame: a second copy of one delivered
    /// through another filter (dropped), or a stand-in's backlog mark.
    func absorbs(topic: String, payload: [UInt8], identifiers: [Int]) -> Bool
    /// Holds a frame this instance processes until its device's subscription is acknowledged
    /// (only discovery frames of devices not subscribed yet wait).
    /// - Returns: true when held (handed back by ``connectionEvent(_:)``).
    func hold(_ frame: RoutedFrame, device: Substring) -> Bool
    /// A connection event of the subscriber (on its network thread).
    /// - Returns: held frames released by it, to route now, in order.
    func connectionEvent(_ event: MQTTClientEvent) -> [RoutedFrame]
    /// A partition changed hands: subscribe its listed devices (gained, warming) or drop them (lost).
    func partitionChanged(_ change: OwnershipChange, devices: [DeviceID])
    /// Whether the subscriber is connected and the broker acknowledged the subscription of
    /// every device of `partition` subscribed here.
    func isSubscribed(partition: Int) -> Bool
}

/// Single mode: one filter brings every device; nothing is held, nothing is a duplicate (and a
/// single gateway has no stand-in).
struct FleetSubscription: InboundSubscriptions {
    var filterOptions: SubscriptionOptions { SubscriptionOptions() }
    func attach(_ connection: any InboundConnection) {}
    func absorbs(topic: String, payload: [UInt8], identifiers: [Int]) -> Bool { false }
    func hold(_ frame: RoutedFrame, device: Substring) -> Bool { false }
    func connectionEvent(_ event: MQTTClientEvent) -> [RoutedFrame] { [] }
    func partitionChanged(_ change: OwnershipChange, devices: [DeviceID]) {}
    func isSubscribed(partition: Int) -> Bool { true }
}
