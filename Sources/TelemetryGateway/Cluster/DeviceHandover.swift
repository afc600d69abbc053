import TelemetryCore

/// What a worker does when this instance gains or loses a device in partitioned mode: the hook
/// where per-device state changes hands between instances.
///
/// Both calls run on the worker that owns the device, in order with its frames: `gained`
/// before its first frame here, `lost` after its last one. The messages returned are published
/// like a frame's (their acknowledgement is not tied to any journal record).
///
/// Before `gained`, the worker has claimed the device in the shared store and restored the
/// snapshot the claim returned (the previous owner's last write), or, without one, forgotten
/// what it held of the device; before `lost`, it has written the device's snapshot to the store
/// (fenced) for its next owner. The built-in ``ContextReplayHandover`` replays the handed-over
/// frames.
public protocol DeviceHandover: Sendable {
    /// This instance now owns `device`: bring its state up to date before its frames arrive.
    /// - Parameters:
    ///   - device: the device.
    ///   - state: whether its snapshot was restored, and (without one) its context frames to
    ///     replay; possibly empty.
    ///   - processor: the worker's processor.
    /// - Returns: messages to publish.
    func gained(_ device: DeviceID, state: HandedOverState, processor: inout FrameProcessor) -> [OutboundMessage]

    /// Another instance now owns `device`: flush or forget its state here.
    /// - Returns: messages to publish.
    func lost(_ device: DeviceID, processor: inout FrameProcessor) -> [OutboundMessage]
}

/// The built-in hand-over: a gained device's handed-over frames (its context frames, when no
/// snapshot was restored) are run through the processor with their outputs discarded (the
/// previous owner published them already). With a snapshot the device continues where its
/// previous owner last wrote it (open dive, stroke counts, pose reference, run timeline); with
/// context frames only, its access state, availability and workout session come back and its
/// derivations start empty. A lost device's state is forgotten; what it held undecided is not
/// published (its new owner continues from the snapshot).
public struct ContextReplayHandover: DeviceHandover {
    /// Creates the hand-over.
    public init() {}

    public func gained(_ device: DeviceID, state: HandedOverState, processor: inout FrameProcessor) -> [OutboundMessage] {
        for frame in state.frames { _ = processor.process(frame) }
        return []
    }

    public func lost(_ device: DeviceID, processor: inout FrameProcessor) -> [OutboundMessage] {
        processor.forget(device)
        return []
    }
}
