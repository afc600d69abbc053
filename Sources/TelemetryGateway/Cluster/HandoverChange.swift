import CoreMetrics
import Foundation
import TelemetryCore

/// A device changing hands, as a worker item (partitioned mode).
enum HandoverChange: Sendable {
    /// What the gate kept of a device this instance gains.
    struct Kept: Sendable {
        /// The previous owner's latest snapshot (JSON) and the frames after it, if sharing state.
        var snapshot: SnapshotCache.Taken?
        /// The device's latest context frames in arrival order.
        var context: [InboundFrame]
        /// Gained at a journal record of an earlier run (replayed at the start), not a live frame.
        var replayed = false
    }

    /// This instance now processes the device: as its owner, or as its next owner warming up
    /// (`shadow`: frames are processed, nothing is published).
    case gained(DeviceID, Kept, shadow: Bool)
    /// The warm-up is over: this instance publishes for the device from now on.
    case promoted(DeviceID)
    /// Another instance now owns the device.
    case lost(DeviceID)

    /// Runs the hook for this change on the worker's processor and updates its shadow set: a
    /// gained device's snapshot is restored first, a lost one's queued for publishing.
    /// - Parameter storeRestored: the worker restored a gained device from the shared store's
    ///   snapshot already (it continues from that; its context frames are older).
    func apply(
        _ hook: any DeviceHandover, to processor: inout FrameProcessor, shadows: inout ShadowDevices, cluster: ClusterRuntime?, storeRestored: Bool = false
    ) -> [OutboundMessage] {
        switch self {
        case .gained(let device, _, let shadow) where storeRestored:
            if shadow { shadows.insert(device) } else { shadows.remove(device) }
            return shadows.visible(hook.gained(device, state: HandedOverState(restoredSnapshot: true, frames: []), processor: &processor))
        case .gained(let device, let kept, let shadow):
            if shadow { shadows.insert(device) } else { shadows.remove(device) }
            processor.forget(device)
            let restored = kept.snapshot.map { Self.restore($0, of: device, into: &processor, metrics: cluster?.metrics) } ?? false
            let state = HandedOverState(restoredSnapshot: restored, frames: restored ? kept.snapshot?.trail ?? [] : kept.context)
            if restored { cluster?.metrics.framesReplayed.increment(by: state.frames.count) }
            return shadows.visible(hook.gained(device, state: state, processor: &processor))
        case .promoted(let device):
            shadows.remove(device)
            return []
        case .lost(let device):
            // The state as of the last frame processed here as owner, for whoever takes it next.
            if !shadows.contains(device), let cluster, cluster.sharesState, let snapshot = processor.snapshot(of: device) {
                cluster.outbox.offer([(device, snapshot)])
            }
            shadows.remove(device)
            return hook.lost(device, processor: &processor)
        }
    }

    /// Restores a handed-over snapshot; false when there is none or it is unreadable (another
    /// format) and nothing was restored.
    private static func restore(_ taken: SnapshotCache.Taken, of device: DeviceID, into processor: inout FrameProcessor, metrics: ClusterMetrics?) -> Bool {
        guard let json = taken.snapshot else { return false }
        guard let snapshot = try? JSONDecoder().decode(DeviceSnapshot.self, from: Data(json)) else {
            metrics?.snapshotsDiscarded.increment()
            return false
        }
        // A partial restore (other derivation settings, a bound reached) keeps what came back.
        processor.restore(snapshot, of: device)
        guard processor.isResident(device) else {
            metrics?.snapshotsDiscarded.increment()
            return false
        }
        metrics?.snapshotsRestored.increment()
        return true
    }
}
