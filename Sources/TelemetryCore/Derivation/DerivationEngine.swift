/// The derivation state of one shard's devices: turns their accepted frames into derived
/// events (depth states, dives, swings, head pose, run segments, …).
///
/// Pure: no clock (time arrives with frames and ticks), no I/O. One instance per worker, so
/// each device's state is touched by one task only, in frame order.
public struct DerivationEngine: Sendable {
    /// The settings of every deriver.
    public let configuration: DerivationConfiguration
    /// The most devices with derivation state; frames of further new devices are not derived
    /// from (counted in ``tally``) so made-up ids cannot grow memory.
    public let maxTrackedDevices: Int
    private var devices = DeviceTable<DeviceDerivations>()
    /// What the derivers counted so far over all devices (strokes by kind, frames of untracked
    /// devices, dropped swing candidates), for metrics.
    public private(set) var tally = DerivationTally()
    /// Devices whose state a tick or a session finish changed since ``takeChanged()``.
    private var changed: Set<DeviceID> = []
    /// Devices a tick can fire something for (``DeviceDerivations/hasTimers``): ticks visit
    /// only these, so an idle fleet of 100,000 watches costs nothing twice a second.
    private var timed: Set<DeviceID> = []

    /// Creates an engine.
    public init(configuration: DerivationConfiguration = DerivationConfiguration(), maxTrackedDevices: Int = 100_000) {
        self.configuration = configuration
        self.maxTrackedDevices = maxTrackedDevices
    }

    /// Feeds one accepted frame of a device to its derivers.
    /// - Returns: the derived events to publish.
    public mutating func receive(_ frame: DecodedFrame, context: DerivationContext) -> [OutboundMessage] {
        if !devices.contains(context.device) {
            guard DeviceDerivations.consumes(frame) else { return [] }
            guard devices.count < maxTrackedDevices else {
                tally.untrackedFrames += 1
                return []
            }
            devices[context.device] = DeviceDerivations(configuration: configuration)
        }
        // One in-place access: reading through the table's optional (`devices[id]!.field`)
        // copied the whole state, a retain and release of each of its buffers, per frame.
        guard let (messages, hasTimers) = devices.update(context.device, { Self.receive(frame, context: context, into: &$0, tally: &tally) }) else {
            return []
        }
        updateTimed(context.device, hasTimers: hasTimers)
        return messages
    }

    private static func receive(
        _ frame: DecodedFrame,
        context: DerivationContext,
        into state: inout DeviceDerivations,
        tally: inout DerivationTally
    ) -> (messages: [OutboundMessage], hasTimers: Bool) {
        let before = state.swing.tally
        let messages = state.receive(frame, context: context)
        tally.add(state.swing.tally.since(before))
        return (messages, state.hasTimers)
    }

    /// Lets every device's time-based rules fire.
    /// - Parameters:
    ///   - now: the gateway's current time, Unix epoch seconds.
    ///   - context: builds a device's context for the tick.
    /// - Returns: the events to publish, devices in id order (deterministic).
    public mutating func tick(now: Double, context: (DeviceID) -> DerivationContext) -> [OutboundMessage] {
        var messages: [OutboundMessage] = []
        for device in timed.sorted(by: { $0.rawValue < $1.rawValue }) {
            let fired = devices[device]!.tick(now: now, context: context(device))
            if !fired.isEmpty { changed.insert(device) }
            updateTimed(device)
            messages += fired
        }
        return messages
    }

    /// Finishes a device's stopped workout session once its end grace is over: decides the
    /// swings still pending.
    /// - Returns: the events to publish.
    public mutating func finishSession(of device: DeviceID, context: DerivationContext) -> [OutboundMessage] {
        guard let before = devices[device]?.swing.tally else { return [] }
        let messages = devices[device]!.finishSession(context: context)
        tally.add(devices[device]!.swing.tally.since(before))
        changed.insert(device)
        updateTimed(device)
        return messages
    }

    /// Applies a head-pose reset command (`gateway/{id}/headphone/reset-pose`) to a device the
    /// engine already tracks; unknown devices get no state.
    /// - Returns: whether a reference pose was reset.
    @discardableResult
    public mutating func resetHeadphonePose(of device: DeviceID, at date: Double, retained: Bool) -> Bool {
        devices[device]?.headphones.resetPose(at: date, retained: retained) ?? false
    }

    /// The derivation state of a device, if it has any (snapshots, tests and diagnostics).
    public func state(of device: DeviceID) -> DeviceDerivations? { devices[device] }

    /// Whether the device has derivation state (without copying it).
    public func tracks(_ device: DeviceID) -> Bool { devices.contains(device) }

    /// Takes back a device's derivation state from a snapshot.
    ///
    /// Refused when the device already has state, the bound is reached, or the snapshot was
    /// taken under other derivation settings (its open dive, pose reference, … were judged by
    /// rules no longer in force, so the device starts fresh).
    /// - Returns: whether it was restored.
    public mutating func restore(_ state: DeviceDerivations, of device: DeviceID) -> Bool {
        guard !devices.contains(device), devices.count < maxTrackedDevices, state.configuration == configuration else { return false }
        devices[device] = state
        updateTimed(device)
        return true
    }

    /// Drops a device's derivation state (evicted; a snapshot keeps it).
    public mutating func forget(_ device: DeviceID) {
        devices[device] = nil
        changed.remove(device)
        timed.remove(device)
    }

    /// The number of devices the next tick visits.
    public var timedDeviceCount: Int { timed.count }

    private mutating func updateTimed(_ device: DeviceID) {
        updateTimed(device, hasTimers: devices[device]?.hasTimers == true)
    }

    private mutating func updateTimed(_ device: DeviceID, hasTimers: Bool) {
        if hasTimers { timed.insert(device) } else { timed.remove(device) }
    }

    /// The devices whose state a tick or a session finish changed since the last call.
    public mutating func takeChanged() -> Set<DeviceID> {
        defer { changed.removeAll(keepingCapacity: true) }
        return changed
    }
}
