import MQTTTransport

/// The snapshots this instance published last, per device (partitioned mode, sharing state),
/// and the rule that keeps the broker's retained copy the newest: a pure value.
///
/// `gateway/cluster/state/{id}` is retained, and the broker keeps whichever snapshot reached it
/// last, not the newest. A previous owner's snapshot can arrive late: the one it publishes when
/// it loses the device, or at shutdown, or after a thaw (it finds itself expired and releases
/// everything). Running instances ignore it (they compare `lastSeen`), but an instance joining
/// later would restore it. So when the current owner reads another instance's snapshot of a
/// device it owns that is older than the one it published, it publishes its own again: the
/// retained copy is the newest once more, within one round trip of the stale one.
struct SnapshotLedger: Sendable {
    private var published: [String: (lastSeen: Double, message: MQTTMessage)] = [:]

    /// Devices with a published snapshot remembered.
    var count: Int { published.count }

    /// Records a snapshot this instance published (an older one than remembered is ignored).
    mutating func sent(_ message: MQTTMessage, device: String, lastSeen: Double) {
        guard (published[device]?.lastSeen ?? -.infinity) <= lastSeen else { return }
        published[device] = (lastSeen, message)
    }

    /// A snapshot of `device` was read (the broker's copy is now that one).
    /// - Parameters:
    ///   - lastSeen: its `lastSeen`.
    ///   - fromOther: whether another instance published it (this instance's own come back in order).
    ///   - owned: whether this instance owns the device now; a device not owned is forgotten.
    /// - Returns: whether to publish this instance's newer snapshot of the device again (taken
    ///   with ``message(of:)`` when it is sent, so a snapshot published meanwhile is not undone).
    mutating func received(device: String, lastSeen: Double, fromOther: Bool, owned: Bool) -> Bool {
        guard owned else {
            published[device] = nil
            return false
        }
        guard fromOther, let mine = published[device] else { return false }
        return mine.lastSeen > lastSeen
    }

    /// The latest snapshot this instance published of `device`.
    func message(of device: String) -> MQTTMessage? { published[device]?.message }
}
