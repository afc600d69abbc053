import Locking
import MQTTTransport
import TelemetryCore

/// The outputs of frames applied to a device's state whose publishing the broker has not
/// acknowledged yet, per device, keyed by the frame's journal sequence.
///
/// A device snapshot carries them (``DeviceSnapshot/unacknowledgedOutputs``): after a crash the
/// journal replay skips the frames the restored state already contains, so their outputs would
/// otherwise never be published. The worker registers a frame's outputs before publishing them;
/// the acknowledgement (on the client's thread) removes them.
final class UnacknowledgedOutputs: Sendable {
    private let outputs = LockedState<[DeviceID: [UInt64: [OutboundMessage]]]>([:])

    /// Keeps `messages` (those at QoS 1 or 2: QoS 0 is at most once by contract) until
    /// ``acknowledged(_:sequence:)``.
    func register(_ device: DeviceID, sequence: UInt64, _ messages: [OutboundMessage]) {
        let durable = messages.filter { $0.qos > .atMostOnce }
        guard !durable.isEmpty else { return }
        outputs.withLock { $0[device, default: [:]][sequence, default: []] += durable }
    }

    /// Every output of the frame with this journal sequence was acknowledged.
    func acknowledged(_ device: DeviceID, sequence: UInt64) {
        outputs.withLock { table in
            table[device]?[sequence] = nil
            if table[device]?.isEmpty == true { table[device] = nil }
        }
    }

    /// The device's unacknowledged outputs in journal order (nil when there are none).
    func messages(of device: DeviceID) -> [OutboundMessage]? {
        outputs.withLock { table in
            table[device].map { byFrame in byFrame.sorted { $0.key < $1.key }.flatMap(\.value) }
        }
    }

    /// `snapshots` with each device's unacknowledged outputs attached.
    func attach(to snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) -> [(device: DeviceID, snapshot: DeviceSnapshot)] {
        snapshots.map { entry in
            var snapshot = entry.snapshot
            snapshot.unacknowledgedOutputs = messages(of: entry.device)
            return (entry.device, snapshot)
        }
    }
}
