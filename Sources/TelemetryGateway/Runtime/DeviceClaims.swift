import RecorderStore
import TelemetryCore

/// Clustered modes with a snapshot store: where each of one shard's devices stands with the
/// store's ownership (docs/scale-out.md, *Fencing*). A pure value owned by the shard's
/// ``DeviceStateKeeper``; the keeper does the store calls and reports their outcomes here.
///
/// - **claimed**: this instance claimed the device under an epoch; its snapshots are written
///   fenced under it and its outputs carry `instance` and `epoch`;
/// - **pending**: owned by the plan, but the claim failed (store down): processed and published
///   unfenced, the claim retried at the next snapshot write;
/// - **fenced**: a fenced write was refused, another instance claimed the device since: nothing
///   of it is applied or published here until the ownership plan moves it away or gives it
///   back (and it is claimed again), or, while this instance's plan still names it the owner,
///   until the plans had time to agree (``DeviceStateKeeper/unfence(after:at:owned:)``);
/// - **superseded**: at a restart, another instance owned the device when its journal records
///   were replayed: the replayed frames are not applied.
struct DeviceClaims: Sendable {
    /// This instance's name (`cluster.instance`), which claims carry.
    let instance: String
    private(set) var epochs: [DeviceID: Int64] = [:]
    private(set) var pending: Set<DeviceID> = []
    /// Fenced devices with the owner that took each, and when (monotonic; nil before the first tick).
    private(set) var fenced: [DeviceID: (owner: DeviceOwnership, since: SuspendingClock.Instant?)] = [:]
    private(set) var superseded: Set<DeviceID> = []
    /// Where the claimed devices of every shard are mirrored, for the claim listener's owner
    /// check after a (re)connect (``ClaimNoticeService``); nil: not mirrored.
    private let index: ClaimedDevices?

    init(instance: String, index: ClaimedDevices? = nil) {
        self.instance = instance
        self.index = index
    }

    /// What a claim of `device` by `owner` that the store notified (or the owner check found)
    /// means here: fencing only when another instance claimed the device under an epoch greater
    /// than the one this instance holds. A claim of this instance's own, an older epoch (a claim
    /// that committed before this instance's), and a device this instance holds no claim of (not
    /// claimed here, pending, or fenced already) change nothing.
    func verdict(on device: DeviceID, claimedBy owner: DeviceOwnership) -> ClaimNoticeVerdict {
        guard owner.instance != instance else { return .ownClaim }
        guard let held = epochs[device] else { return .notHeld }
        return owner.epoch > held ? .fence : .notNewer
    }

    /// The epoch this instance claimed `device` under; nil when it holds no claim.
    func epoch(of device: DeviceID) -> Int64? { epochs[device] }

    /// Whether nothing of `device` may be applied or published here (refused write).
    func isFenced(_ device: DeviceID) -> Bool { fenced[device] != nil }

    /// Whether `device`'s replayed journal records are not applied (another instance owns it).
    func isSuperseded(_ device: DeviceID) -> Bool { superseded.contains(device) }

    /// Whether a frame of `device` processed as owner needs a claim first: neither claimed,
    /// nor waiting for a retry, nor fenced.
    func needsClaim(_ device: DeviceID) -> Bool {
        epochs[device] == nil && !pending.contains(device) && fenced[device] == nil
    }

    /// The store made this instance the owner under `epoch`.
    mutating func claimed(_ device: DeviceID, epoch: Int64) {
        epochs[device] = epoch
        pending.remove(device)
        fenced[device] = nil
        superseded.remove(device)
        index?.insert(device)
    }

    /// The claim could not be made (the store did not answer): retried later.
    mutating func claimFailed(_ device: DeviceID) {
        epochs[device] = nil
        pending.insert(device)
        index?.remove(device)
    }

    /// A fenced write of `device` was refused, or the store notified a later claim of it:
    /// `owner` holds it now.
    /// - Returns: whether it was not fenced before (log once per device).
    @discardableResult
    mutating func refused(_ device: DeviceID, owner: DeviceOwnership, at instant: SuspendingClock.Instant?) -> Bool {
        epochs[device] = nil
        pending.remove(device)
        index?.remove(device)
        return fenced.updateValue((owner, instant), forKey: device) == nil
    }

    /// The devices fenced at least `delay` before `instant`. A fencing learnt before the shard's
    /// first tick (a notified claim at the start) counts from `instant`: never due at once.
    mutating func fenced(before instant: SuspendingClock.Instant, by delay: Duration) -> [DeviceID] {
        for (device, entry) in fenced where entry.since == nil { fenced[device] = (entry.owner, instant) }
        return fenced.compactMap { device, entry in entry.since.map { $0 + delay <= instant } == true ? device : nil }
    }

    /// At a restart, `owner` held the device when its journal records were replayed.
    mutating func supersede(_ device: DeviceID) {
        superseded.insert(device)
    }

    /// The ownership plan moved the device away: this instance holds nothing of it any more.
    mutating func released(_ device: DeviceID) {
        epochs[device] = nil
        pending.remove(device)
        fenced[device] = nil
        superseded.remove(device)
        index?.remove(device)
    }

    /// `messages` without those about fenced devices, and with `instance` and `epoch` user
    /// properties on those about claimed devices (docs/wire-contract.md, *Owner and epoch*).
    func stamp(_ messages: [OutboundMessage]) -> [OutboundMessage] {
        guard !epochs.isEmpty || !fenced.isEmpty else { return messages }
        return messages.compactMap { message in
            guard let device = message.device, fenced[device] == nil else { return message.device == nil ? message : nil }
            guard let epoch = epochs[device] else { return message }
            var stamped = message
            stamped.userProperties.append(UserProperty(name: "instance", value: instance))
            stamped.userProperties.append(UserProperty(name: "epoch", value: String(epoch)))
            return stamped
        }
    }
}

/// What a notified claim means to the instance that receives it (``DeviceClaims/verdict(on:claimedBy:)``).
enum ClaimNoticeVerdict: Sendable, Equatable {
    /// This instance's own claim.
    case ownClaim
    /// This instance holds no claim of the device.
    case notHeld
    /// Another instance's claim under an epoch not greater than the one held here.
    case notNewer
    /// Another instance claimed the device after this instance: stop publishing for it.
    case fence
}
