import CoreMetrics
import MQTTTransport
import TelemetryCore

/// Partitioned mode's decision per inbound message, on the subscriber's thread: whether this
/// instance owns the device, which devices it just gained (to restore before their first
/// frame) or lost (to release), and the context frames kept for take-overs.
///
/// Gains and losses are noticed lazily, on the thread that routes frames, so the hand-over
/// items reach a worker queue in order with the device's frames: a gain right before the first
/// owned frame, a loss (for every device at once, at the first message after the membership
/// changed) before anything else is routed.
final class OwnershipGate: Sendable {
    /// What to do with one message.
    struct Verdict {
        /// Whether this instance processes it.
        var owned = false
        /// The device was just gained: replay these context frames into its worker first.
        var restore: (device: DeviceID, context: [InboundFrame])?
        /// Devices lost since the last message: release their state.
        var released: [DeviceID] = []
        /// An owned context frame: copy it (retained) for instances that join later.
        var replicate = false
    }

    private struct State {
        var sweptVersion = -1
        /// Devices this instance holds state for as their owner, by routing key.
        var active: [String: DeviceID] = [:]
        var context: ContextCache
    }

    let me: String
    private let view: ClusterView
    private let scheme: TopicScheme
    private let metrics: ClusterMetrics
    private let state: LockedState<State>

    init(view: ClusterView, scheme: TopicScheme, contextDevices: Int, metrics: ClusterMetrics) {
        me = view.me
        self.view = view
        self.scheme = scheme
        self.metrics = metrics
        state = LockedState(State(context: ContextCache(limit: contextDevices)))
    }

    /// Decides for a device frame (or a command below the outbound root, `inbound` false).
    /// - Parameters:
    ///   - frame: the message as a frame (not parsed yet).
    ///   - key: its routing key (the raw device id level).
    ///   - inbound: whether it is below the inbound root (only those carry context).
    ///   - replayed: a journal record of an earlier run: processed whoever owns the device now
    ///     (nobody else received it as owner), its state released at the next change.
    func admit(_ frame: InboundFrame, key: Substring, inbound: Bool, replayed: Bool = false) -> Verdict {
        let (version, ownership) = view.ownership
        var verdict = Verdict()
        let counts: (owned: Int, context: Int)? = state.withLock { state in
            let before = (state.active.count, state.context.count)
            if state.sweptVersion != version {
                state.sweptVersion = version
                for (activeKey, device) in state.active where !ownership.owns(me, activeKey) {
                    verdict.released.append(device)
                    state.active[activeKey] = nil
                }
            }
            let keyText = String(key)
            let stream = inbound ? ContextCache.stream(of: frame.topic, key: key, root: scheme.inboundRoot) : nil
            verdict.owned = replayed || ownership.owns(me, keyText)
            if verdict.owned, inbound, state.active[keyText] == nil, case .device(let device, _)? = scheme.parseInbound(frame.topic) as InboundTopic? {
                // The kept context, not yet including this frame (it is processed as itself).
                verdict.restore = (device, state.context.frames(of: keyText))
                state.active[keyText] = device
                if replayed { state.sweptVersion = -1 }
            }
            if let stream {
                state.context.keep(frame, stream: stream, key: keyText)
                verdict.replicate = verdict.owned && !replayed
            }
            let after = (state.active.count, state.context.count)
            return after == before ? nil : after
        }
        if let counts {
            metrics.ownedDevices.record(counts.owned)
            metrics.contextDevices.record(counts.context)
        }
        if verdict.restore != nil { metrics.devicesGained.increment() }
        if !verdict.released.isEmpty { metrics.devicesLost.increment(by: verdict.released.count) }
        return verdict
    }

    /// Whether this instance owns a device now (recorder queries).
    func owns(_ device: DeviceID) -> Bool {
        view.ownership.ownership.owns(me, device.rawValue)
    }

    /// Keeps a context frame another instance copied for us (`gateway/cluster/context/...`).
    func keepReplica(_ frame: InboundFrame, device: String, stream: InboundStream) {
        state.withLock { state in
            guard state.active[device] == nil else { return }  // we own it: our own frames are newer
            state.context.keep(frame, stream: stream, key: device)
        }
    }
}
