import Locking
import MQTTTransport
import TelemetryCore

/// Snapshots waiting to be published on `gateway/cluster/state/{id}` (partitioned mode): the
/// workers hand them over without waiting (a lock and a dictionary write) and the
/// ``SnapshotShareService`` encodes and publishes them off the workers. Only the latest of each
/// device waits, so the outbox holds at most one snapshot per device however far behind the
/// publishing falls.
final class SnapshotOutbox: Sendable {
    private let pending = LockedState<[DeviceID: DeviceSnapshot]>([:])
    /// Devices whose published snapshot is to be published again (``SnapshotLedger``).
    private let republish = LockedState<Set<String>>([])
    /// Wakes the publishing service (one wake-up stands for any number of offers).
    let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init() {
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues snapshots, replacing any still waiting for the same devices.
    func offer(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) {
        guard !snapshots.isEmpty else { return }
        pending.withLock { pending in
            for (device, snapshot) in snapshots { pending[device] = snapshot }
        }
        wake.yield()
    }

    /// Takes everything waiting.
    func take() -> [(device: DeviceID, snapshot: DeviceSnapshot)] {
        pending.withLock { pending in
            defer { pending.removeAll() }
            return pending.map { ($0.key, $0.value) }
        }
    }

    /// Asks for a device's last published snapshot to be published again.
    func requestRepublish(_ device: String) {
        republish.withLock { _ = $0.insert(device) }
        wake.yield()
    }

    /// Takes the devices to publish again.
    func takeRepublish() -> Set<String> {
        republish.withLock { devices in
            defer { devices.removeAll() }
            return devices
        }
    }

    /// Ends the wake-ups (shutdown: the service publishes what is left and stops).
    func finish() { wake.finish() }
}
