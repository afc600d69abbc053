import TelemetryCore

/// What a worker does when this instance gains or loses a device in partitioned mode: the hook
/// where per-device state changes hands between instances.
///
/// Both calls run on the worker that owns the device, in order with its frames: `gained`
/// before its first frame here, `lost` after its last one. The messages returned are published
/// like a frame's (their acknowledgement is not tied to any journal record).
///
/// The built-in ``ContextReplayHandover`` restores what the kept context frames carry and
/// starts derivations fresh; a durable-state implementation restores the previous owner's
/// snapshot of the device in `gained` and writes it in `lost`.
public protocol DeviceHandover: Sendable {
    /// This instance now owns `device`: bring its state up to date before its frames arrive.
    /// - Parameters:
    ///   - device: the device.
    ///   - context: its latest context frames (hello, status, authorization, workout, headphone
    ///     connection) in arrival order, as this instance received them or another instance
    ///     copied them; possibly empty.
    ///   - processor: the worker's processor.
    /// - Returns: messages to publish.
    func gained(_ device: DeviceID, context: [InboundFrame], processor: inout FrameProcessor) -> [OutboundMessage]

    /// Another instance now owns `device`: flush or forget its state here.
    /// - Returns: messages to publish.
    func lost(_ device: DeviceID, processor: inout FrameProcessor) -> [OutboundMessage]
}

/// The hand-over with what exists without durable derived state: a gained device's context
/// frames are run through the processor with their outputs discarded (the previous owner
/// published them already), so its access state, availability and workout session are
/// restored; its derivations (swing windows, dives, head-pose reference, run timeline) start
/// empty. A lost device's state is forgotten; what it held undecided is not published.
public struct ContextReplayHandover: DeviceHandover {
    /// Creates the hand-over.
    public init() {}

    public func gained(_ device: DeviceID, context: [InboundFrame], processor: inout FrameProcessor) -> [OutboundMessage] {
        processor.forget(device)
        for frame in context { _ = processor.process(frame) }
        return []
    }

    public func lost(_ device: DeviceID, processor: inout FrameProcessor) -> [OutboundMessage] {
        processor.forget(device)
        return []
    }
}
