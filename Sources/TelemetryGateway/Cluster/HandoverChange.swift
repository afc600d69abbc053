import TelemetryCore

/// A device changing hands, as a worker item (partitioned mode).
enum HandoverChange: Sendable {
    /// What the gate kept of a device this instance gains.
    struct Kept: Sendable {
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

    /// Runs the hook for this change on the worker's processor and updates its shadow set.
    /// - Parameter storeRestored: the worker restored a gained device from the shared store's
    ///   snapshot already (it continues from that; its context frames are older). Without it
    ///   the device starts from its context frames.
    func apply(_ hook: any DeviceHandover, to processor: inout FrameProcessor, shadows: inout ShadowDevices, storeRestored: Bool = false) -> [OutboundMessage] {
        switch self {
        case .gained(let device, let kept, let shadow):
            if shadow { shadows.insert(device) } else { shadows.remove(device) }
            if !storeRestored { processor.forget(device) }
            let state = HandedOverState(restoredSnapshot: storeRestored, frames: storeRestored ? [] : kept.context)
            return shadows.visible(hook.gained(device, state: state, processor: &processor))
        case .promoted(let device):
            shadows.remove(device)
            return []
        case .lost(let device):
            shadows.remove(device)
            return hook.lost(device, processor: &processor)
        }
    }
}
