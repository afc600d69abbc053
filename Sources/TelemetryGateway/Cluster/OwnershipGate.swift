import CoreMetrics
import Foundation
import Locking
import MQTTTransport
import TelemetryCore

/// Partitioned mode's decision per inbound message, on the subscriber's thread: whether this
/// instance processes it (as the device's owner, or as its next owner warming up), which
/// devices it just gained (to restore before their first frame), promoted (warm-up over) or
/// lost (to release), and the context frames kept for take-overs (a device's snapshot comes
/// from the shared store with its claim).
///
/// **The switch is the next owner's claim.** When the plan moves a device away from this
/// instance while the device's next owner is alive and warming up, this instance keeps
/// processing and publishing the device (it is *handing over*) until the store notifies the
/// next owner's claim (``handedOver(_:)``, called by the device's worker in order with its
/// frames); only then is it released. So no frame falls between the two owners, and the frames
/// within the notification's latency are processed by both (same `eventId`). A device that sent
/// nothing while its next owner warmed up (so that owner holds no state of it and claims it
/// only at its next frame) is released at once at the switch, its final snapshot written for
/// that claim.
///
/// In shared mode the broker chose this instance for the message, so the role is always
/// owner; the gate then only marks a device's first frame here as a gain (its claim in the
/// shared store restores its snapshot). It keeps no context frames: the broker sends all of a
/// device's frames to one member, so a device's first frame here never finds earlier ones.
///
/// Changes reach a worker queue in order with the device's frames: all promotions and losses
/// at the first message after the plan changed, before anything else is routed, or, when the
/// membership's heartbeat notices the change first (``planChanged(_:)``: with per-device
/// subscriptions a device moved away sends nothing more here), right then; a gain right before
/// the device's first frame here. A frame routed just before a release noticed on another
/// thread reaches the worker after the release, which does not apply it (its next owner
/// received it too).
final class OwnershipGate: Sendable {
    /// What to do with one message.
    struct Verdict {
        /// This instance processes it (as owner or shadow).
        var role = OwnershipPlan.Role.none
        /// The device was just gained: restore what was kept of it in its worker first.
        var restore: (device: DeviceID, kept: HandoverChange.Kept)?
        /// Devices whose warm-up ended at this plan change: publish for them from now on.
        var promoted: [DeviceID] = []
        /// Devices lost since the last message: release their state.
        var released: [DeviceID] = []

        /// Whether this instance publishes what the message yields.
        var owned: Bool { role == .owner }
    }

    /// How this instance holds a device's state.
    private enum Holding {
        /// Processes and publishes.
        case owner
        /// Processes without publishing (warming up as the next owner).
        case shadow
        /// The plan gave the device to another instance, whose claim has not been notified yet:
        /// still processes and publishes.
        case handingOver
        /// The next owner's claim was notified before this instance's own switch (it read the
        /// change a little later): nothing of the device is processed here, and it is not gained
        /// again, until the plan moves it away (then forgotten) or keeps it here after all.
        case handedOver
    }

    private struct Entry {
        var device: DeviceID
        var holding: Holding
        /// A frame of the device came while the plan was moving it away from this instance: its
        /// next owner, subscribed since its warm-up began, received it too and will claim it.
        var sharedWithNext = false
    }

    /// The devices this instance holds state for, by routing key, with a count per holding kept
    /// as entries change (the gauges read it at every change; a scan would cost the whole fleet).
    private struct ActiveDevices {
        private(set) var entries: [String: Entry] = [:]
        private var counts: [Holding: Int] = [:]

        subscript(key: String) -> Entry? {
            get { entries[key] }
            set {
                if let old = entries[key]?.holding { counts[old, default: 0] -= 1 }
                if let new = newValue?.holding { counts[new, default: 0] += 1 }
                entries[key] = newValue
            }
        }

        func count(_ holding: Holding) -> Int { counts[holding] ?? 0 }
        /// Devices this instance processes and publishes: owned, or owned until the next owner's
        /// claim is notified (shadows and devices handed over are not).
        var owned: Int { count(.owner) + count(.handingOver) }
    }

    /// What the gauges show; compared before and after a change so that they are set only then.
    private struct Levels: Equatable {
        var owned: Int
        var shadows: Int
        var context: Int
    }

    private struct State {
        var seenVersion = -1
        var active = ActiveDevices()
        /// Partitioned mode: the context frames kept for gains (nil in shared mode).
        var context: ContextCache?
        /// Waiting for every device handing over to be claimed by its next owner (a drain).
        var handOverWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]

        var handingOverCount: Int { active.count(.handingOver) }
        var levels: Levels { Levels(owned: active.owned, shadows: active.count(.shadow), context: context?.count ?? 0) }
    }

    let me: String
    /// Shared mode: every message is this instance's.
    let ownsEverything: Bool
    private let view: ClusterView
    private let scheme: TopicScheme
    private let metrics: ClusterMetrics
    private let state: LockedState<State>

    init(view: ClusterView, scheme: TopicScheme, contextDevices: Int, metrics: ClusterMetrics, ownsEverything: Bool = false) {
        me = view.me
        self.ownsEverything = ownsEverything
        self.view = view
        self.scheme = scheme
        self.metrics = metrics
        state = LockedState(State(context: ownsEverything ? nil : ContextCache(limit: contextDevices)))
    }

    /// Decides for a device frame (or a command below the outbound root, `inbound` false).
    /// - Parameters:
    ///   - frame: the message as a frame (not parsed yet).
    ///   - key: its routing key (the raw device id level).
    ///   - inbound: whether it is below the inbound root (only those carry context).
    ///   - replayed: a journal record of an earlier run: processed as owner whoever owns the
    ///     device now (nobody else received it as owner), its state released at the next change.
    ///   - now: when the message arrived, on this instance's monotonic clock in seconds.
    func admit(_ frame: InboundFrame, key: Substring, inbound: Bool, replayed: Bool = false, at now: Double) -> Verdict {
        let plan = ownsEverything ? OwnershipPlan(warmup: 0) : view.plan(at: now)
        var verdict = Verdict()
        let levels: Levels? = state.withLock { state in
            let before = state.levels
            if !ownsEverything { (verdict.promoted, verdict.released) = reconcile(&state, with: plan) }
            let keyText = String(key)
            let stream = inbound && state.context != nil ? ContextCache.stream(of: frame.topic, key: key, root: scheme.inboundRoot) : nil
            let holding = state.active[keyText]?.holding
            if ownsEverything && !inbound {
                // Shared mode: the broker picked this instance by the app's client id, not the
                // device's; a command is applied where the device's state is (every instance
                // receives it through a plain subscription).
                verdict.role = holding != nil ? .owner : .none
            } else if holding == .handedOver {
                verdict.role = .none
            } else if replayed || ownsEverything || holding == .handingOver {
                verdict.role = .owner
            } else {
                verdict.role = plan.role(of: me, for: keyText)
            }
            if verdict.role != .none, inbound, holding == nil,
                case .device(let device, _)? = scheme.parseInbound(frame.topic) as InboundTopic?
            {
                // What is kept, not yet including this frame (it is processed as itself).
                verdict.restore = (device, .init(context: state.context?.frames(of: keyText) ?? [], replayed: replayed))
                state.active[keyText] = Entry(device: device, holding: verdict.role == .shadow ? .shadow : .owner)
                if replayed { state.seenVersion = -1 }
            }
            if verdict.role == .owner, !ownsEverything, plan.isMovingAway(keyText, from: me) {
                state.active[keyText]?.sharedWithNext = true
            }
            if let stream {
                state.context?.keep(frame, stream: stream, key: keyText)
            }
            let after = state.levels
            return after == before ? nil : after
        }
        if let levels { record(levels) }
        if verdict.restore != nil { metrics.devicesGained.increment() }
        if !verdict.released.isEmpty { metrics.devicesLost.increment(by: verdict.released.count) }
        return verdict
    }

    /// The plan changed without a message to notice it (membership's heartbeat, a warm-up's
    /// end): with per-device subscriptions a device moved away sends nothing more here, so its
    /// release cannot wait for its next frame.
    /// - Returns: the devices promoted and released by `plan`, if not handed out before.
    func planChanged(_ plan: OwnershipPlan) -> (promoted: [DeviceID], released: [DeviceID]) {
        guard !ownsEverything else { return ([], []) }
        let (changes, levels) = state.withLock { state in (reconcile(&state, with: plan), state.levels) }
        if !changes.released.isEmpty { metrics.devicesLost.increment(by: changes.released.count) }
        if !changes.released.isEmpty || !changes.promoted.isEmpty { record(levels) }
        return changes
    }

    private func record(_ levels: Levels) {
        metrics.ownedDevices.record(levels.owned)
        metrics.shadowDevices.record(levels.shadows)
        metrics.contextDevices.record(levels.context)
    }

    /// Applies a plan version not applied yet to the active devices: the shadows it makes owners
    /// are promoted; a device it gives to another instance is handed over (kept until the next
    /// owner's claim is notified) when its next owner shares its frames, released otherwise.
    private func reconcile(_ state: inout State, with plan: OwnershipPlan) -> (promoted: [DeviceID], released: [DeviceID]) {
        guard state.seenVersion != plan.version else { return ([], []) }
        state.seenVersion = plan.version
        // Nobody owns anything (the last instance leaving, or all of them at once): nobody takes
        // the devices over, and their state stays for this instance's final snapshot write. A
        // lapsed instance (frozen past the expiry) lets go all the same: the others own them.
        // (Asked only for an empty plan's new version, not per frame; the view never calls the gate.)
        let lapsed = view.lapsed
        guard !plan.current.instances.isEmpty || lapsed else { return ([], []) }
        // An instance that left (or lapsed) hands nothing over: it stops processing.
        let handsOver = !lapsed && view.processes
        var changes: (promoted: [DeviceID], released: [DeviceID]) = ([], [])
        for (activeKey, entry) in state.active.entries {
            switch (plan.role(of: me, for: activeKey), entry.holding) {
            case (.owner, .handedOver) where !plan.isMovingAway(activeKey, from: me):
                // The move was called off (its next owner left): gained again at its next frame.
                state.active[activeKey] = nil
            case (.none, .handedOver):
                // The switch came: the device is another instance's, as the worker already knows.
                state.active[activeKey] = nil
            case (_, .handedOver): break
            case (.owner, .shadow):
                changes.promoted.append(entry.device)
                state.active[activeKey]?.holding = .owner
            case (.owner, .handingOver):
                // Given back before the next owner claimed it: this instance's claim still holds.
                state.active[activeKey] = Entry(device: entry.device, holding: .owner)
            case (.owner, .owner):
                if plan.next == nil { state.active[activeKey]?.sharedWithNext = false }
            case (.shadow, .shadow): break
            case (_, .owner) where handsOver && entry.sharedWithNext:
                state.active[activeKey]?.holding = .handingOver
            case (_, .handingOver) where handsOver: break
            default:
                // A shadow re-gains the device (restored again) at its next frame.
                changes.released.append(entry.device)
                state.active[activeKey] = nil
            }
        }
        resumeHandOverWaitersIfDone(&state)
        return changes
    }

    // MARK: Hand-over by claim

    /// The store notified that another instance claimed `device` under a newer epoch (called by
    /// the device's worker, in order with its frames): if this instance was handing it over, or
    /// `plan` (the plan now) is moving it to another instance (that instance's warm-up ended
    /// before this one's: the instances read a change a few milliseconds apart), it lets go of it
    /// now and returns true; false when the plan still gives it the device (then the claim
    /// fences it) or it holds no state of it.
    func handedOver(_ device: DeviceID, plan: OwnershipPlan) -> Bool {
        // Shared mode: the broker moves devices without a plan; a claim elsewhere fences.
        guard !ownsEverything else { return false }
        let levels: Levels? = state.withLock { state in
            guard let entry = state.active[device.rawValue] else { return nil }
            switch entry.holding {
            case .handingOver: state.active[device.rawValue] = nil
            case .owner where plan.isMovingAway(device.rawValue, from: me): state.active[device.rawValue]?.holding = .handedOver
            default: return nil
            }
            resumeHandOverWaitersIfDone(&state)
            return state.levels
        }
        guard let levels else { return false }
        metrics.devicesLost.increment()
        metrics.devicesHandedOver.increment()
        record(levels)
        return true
    }

    /// The routing keys of the devices this instance is handing over (still subscribed).
    var handingOver: Set<String> {
        state.withLock { state in Set(state.active.entries.filter { $0.value.holding == .handingOver }.keys) }
    }

    /// Waits until no device is handing over (every next owner's claim was notified), at most
    /// `timeout` seconds; returns how many are left.
    func waitUntilHandedOver(timeout: Double) async -> Int {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let done = self.state.withLock { state -> Bool in
                        if state.handingOverCount == 0 { return true }
                        state.handOverWaiters[id] = continuation
                        return false
                    }
                    if done { continuation.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                // Time is up (or cancelled): release the waiter.
                self.state.withLock { $0.handOverWaiters.removeValue(forKey: id) }?.resume()
            }
            await group.next()
            group.cancelAll()
        }
        return state.withLock { $0.handingOverCount }
    }

    /// Resumes the drain's waiters once nothing is handing over. Counted only while a waiter
    /// exists: a count per claim notification would cost the active devices each time.
    private func resumeHandOverWaitersIfDone(_ state: inout State) {
        guard !state.handOverWaiters.isEmpty, state.handingOverCount == 0 else { return }
        let waiters = state.handOverWaiters.values
        state.handOverWaiters = [:]
        // Resuming inside the lock is safe: a continuation only schedules its task.
        waiters.forEach { $0.resume() }
    }

    /// Whether this instance owns a device now (a fenced device is claimed again only then):
    /// partitioned mode, by the plan; shared mode, whether it holds the device's state (the
    /// broker sent its frames here).
    func owns(_ device: DeviceID) -> Bool {
        // The plan as applied: asked on a worker, which must not apply a change itself.
        guard ownsEverything else { return view.appliedPlan.current.owns(me, device.rawValue) }
        return state.withLock { $0.active[device.rawValue] != nil }
    }
}
