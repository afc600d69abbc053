import Ownership
import TelemetryCore

/// A partition changing hands, as one shard's worker applies it, in order with its frames.
struct PartitionMove: Sendable {
    let change: OwnershipChange
    /// The partition's devices with stored state that belong to the worker's shard: gained or
    /// warming, restored at their first frame here.
    let devices: [DeviceID]
    /// Gained: the retained messages their snapshots carry (announced again if the broker
    /// loses its own).
    let retained: [OutboundMessage]
    let partitions: OwnershipPartitions

    var partition: Int { change.partition }
    /// The partition is lost here: its devices are let go.
    var isLost: Bool { if case .lost = change { true } else { false } }
    /// The partition is gained here (taken or handed over), not only warming up.
    var isGained: Bool { if case .gained = change { true } else { false } }

    /// Whether `device` belongs to the partition.
    func contains(_ device: DeviceID) -> Bool { partitions.partition(of: device.rawValue) == partition }
}
