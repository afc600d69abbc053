import CoreMetrics
import MQTTTransport
import Ownership

/// The gate of a clustered instance: a frame is taken by its device's role here (held:
/// journaled and published; warming: processed for its state only; another's: dropped), a
/// second copy through another filter is dropped, a discovery frame waits for its device's
/// SUBACK, and a journaled frame of a held device is acknowledged to the broker only once its
/// outputs are published (``AcknowledgementsAfterOutputs``).
struct PartitionGate: FrameGate {
    let ownership: any OwnershipPort
    let subscriptions: any InboundSubscriptions
    /// Nil without a journal (frames are acknowledged at once).
    let acknowledgements: AcknowledgementsAfterOutputs?
    let metrics: OwnershipMetrics

    func admit(topic: String, payload: [UInt8], identifiers: [Int], routingKey: Substring) -> Admission {
        // A hello or status of a subscribed device comes twice (it matches the discovery filter
        // and the device's own), but once after a broker restart: the second copy goes.
        if subscriptions.absorbs(topic: topic, payload: payload, identifiers: identifiers) { return .duplicate }
        switch ownership.role(of: routingKey) {
        case .none:
            metrics.framesNotOwned.increment()
            return .elsewhere
        case .warming:
            metrics.framesShadowed.increment()
            return .take(Publication(role: .warming))
        case let role:
            return .take(Publication(role: role))
        }
    }

    func replay(routingKey: Substring, upload: Bool) -> ReplayDecision {
        // Only a held partition's records are applied: a warming one's device continues from
        // what its holder stored, which these older frames must not be applied onto.
        if case .owner = ownership.role(of: routingKey) { return .apply }
        if upload { return .storeOnly }
        metrics.framesNotOwned.increment()
        return .drop
    }

    func hold(_ frame: RoutedFrame, device: Substring) -> Bool {
        // A discovery frame of a device whose subscription is not acknowledged yet waits for the
        // SUBACK (its availability must not reach the device before its frames can).
        if subscriptions.hold(frame, device: device) { return true }
        if let release = frame.release { acknowledgements?.opened(release.sequence) }
        return false
    }

    func connectionEvent(_ event: MQTTClientEvent) -> [RoutedFrame] {
        acknowledgements?.connectionEvent(event)
        return subscriptions.connectionEvent(event)
    }
}
