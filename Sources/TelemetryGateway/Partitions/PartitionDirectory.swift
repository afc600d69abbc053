import Ownership
import PostgresStore
import TelemetryCore

/// What the store knows of the devices of ownership partitions, for ``OwnershipService``: no
/// instance keeps a list of every device, so a partition that comes here has its devices
/// listed from the store. Two adapters: the shared store (clustered) and ``NoPartitionDirectory``
/// (single mode: every device comes through one filter and is restored at its first frame).
protocol PartitionDirectory: Sendable {
    /// The devices with stored state in `partitions`.
    func devices(in partitions: [Int]) async throws -> [DeviceID]
    /// The retained messages the stored snapshots of `partitions`' devices carry.
    func retainedOutputs(in partitions: [Int]) async throws -> [OutboundMessage]
    /// Devices of partitions this instance holds that another instance made known after it
    /// lost their partition (first seen just before a hand-over, written after this instance
    /// listed the partition); each is returned once.
    func adoptMadeKnown() async throws -> [DeviceID]
}

extension PostgresLeasedStateStore: PartitionDirectory {}

/// Single mode: no partition ever comes or goes, so there is nothing to list.
struct NoPartitionDirectory: PartitionDirectory {
    func devices(in partitions: [Int]) async throws -> [DeviceID] { [] }
    func retainedOutputs(in partitions: [Int]) async throws -> [OutboundMessage] { [] }
    func adoptMadeKnown() async throws -> [DeviceID] { [] }
}
