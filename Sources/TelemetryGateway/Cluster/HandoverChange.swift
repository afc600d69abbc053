import TelemetryCore

/// A device changing hands, as a worker item (partitioned mode).
enum HandoverChange: Sendable {
    /// This instance now processes the device: as its owner, or as its next owner warming up
    /// (`shadow`: frames are processed, nothing is published); its kept context frames in
    /// arrival order.
    case gained(DeviceID, context: [InboundFrame], shadow: Bool)
    /// The warm-up is over: this instance publishes for the device from now on.
    case promoted(DeviceID)
    /// Another instance now owns the device.
    case lost(DeviceID)

    /// Runs the hook for this change on the worker's processor and updates its shadow set.
    func apply(_ hook: any DeviceHandover, to processor: inout FrameProcessor, shadows: inout ShadowDevices) -> [OutboundMessage] {
        switch self {
        case .gained(let device, let context, let shadow):
            if shadow { shadows.insert(device) } else { shadows.remove(device) }
            return shadows.visible(hook.gained(device, context: context, processor: &processor))
        case .promoted(let device):
            shadows.remove(device)
            return []
        case .lost(let device):
            shadows.remove(device)
            return hook.lost(device, processor: &processor)
        }
    }
}
