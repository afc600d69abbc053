import MQTTTransport

/// Which received frames this instance takes, and how: the one place the router asks, once per
/// frame. Two adapters: ``OpenGate`` (`cluster.mode: single`: every frame is this instance's,
/// a constant) and ``PartitionGate`` (clustered: by the partition leases, device by device).
protocol FrameGate: Sendable {
    /// Decides a live message (its topic, payload and subscription identifiers).
    func admit(topic: String, payload: [UInt8], identifiers: [Int], routingKey: Substring) -> Admission

    /// What becomes of a record of an earlier run, replayed at the start.
    func replay(routingKey: Substring, upload: Bool) -> ReplayDecision

    /// Holds a frame until its device can receive what it causes (clustered: a discovery frame
    /// until its device's subscription is acknowledged); otherwise lets it go on.
    /// - Returns: true when held (handed back by ``connectionEvent(_:)``).
    func hold(_ frame: RoutedFrame, device: Substring) -> Bool

    /// A connection event of the subscriber (on its network thread).
    /// - Returns: held frames released by it, to route now, in order.
    func connectionEvent(_ event: MQTTClientEvent) -> [RoutedFrame]
}

/// What the router does with a live message.
enum Admission: Sendable {
    /// Taken, its outputs leaving under `Publication`; a warming partition's frame is processed
    /// for its state only and not journaled (its holder journals it).
    case take(Publication)
    /// A second copy of a frame delivered through another filter, or the subscriptions' own mark:
    /// not a received frame.
    case duplicate
    /// Another instance's device: dropped before the journal (counted by the gate).
    case elsewhere
}

/// What the router does with a replayed record of an earlier run.
enum ReplayDecision: Sendable {
    /// Applied like a live frame, published by each device's role when its outputs leave.
    case apply
    /// A recorder upload of a device held elsewhere now: stored as history, not applied.
    case storeOnly
    /// Another instance's device now: let go (counted by the gate).
    case drop
}
