import Locking
import TelemetryCore

/// The devices every shard of this instance holds claimed, mirrored by each shard's
/// ``DeviceClaims``: what the claim listener asks the store about after it (re)connects,
/// since claims notified while it was away are lost (``ClaimNoticeService``).
final class ClaimedDevices: Sendable {
    private let devices = LockedState<Set<DeviceID>>([])

    func insert(_ device: DeviceID) { devices.withLock { _ = $0.insert(device) } }

    func remove(_ device: DeviceID) { devices.withLock { _ = $0.remove(device) } }

    /// The devices claimed now, in no order.
    var all: [DeviceID] { devices.withLock { Array($0) } }
}
