import TelemetryCore

/// A device changing hands, as a worker item (partitioned mode).
enum HandoverChange: Sendable {
    /// This instance now owns the device; its kept context frames in arrival order.
    case gained(DeviceID, context: [InboundFrame])
    /// Another instance now owns the device.
    case lost(DeviceID)

    /// Runs the hook for this change on the worker's processor.
    func apply(_ hook: any DeviceHandover, to processor: inout FrameProcessor) -> [OutboundMessage] {
        switch self {
        case .gained(let device, let context): hook.gained(device, context: context, processor: &processor)
        case .lost(let device): hook.lost(device, processor: &processor)
        }
    }
}
