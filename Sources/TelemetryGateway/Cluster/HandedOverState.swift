import TelemetryCore

/// What a device's new owner has of it when it takes it over (partitioned mode), given to
/// ``DeviceHandover/gained(_:state:processor:)`` after the worker restored what it could.
public struct HandedOverState: Sendable {
    /// Whether the device's snapshot was restored into the processor before the call: the one
    /// the shared store returned with this instance's claim (what the previous owner, or this
    /// instance before a restart, wrote last), or for a device gained as a shadow warming up,
    /// the stored one.
    public var restoredSnapshot: Bool
    /// The frames to replay, in arrival order: without a restored snapshot, the device's latest
    /// context frames (hello, status, authorization, workout, headphone connection); with one,
    /// none (the snapshot is newer).
    public var frames: [InboundFrame]

    /// Creates the state.
    public init(restoredSnapshot: Bool, frames: [InboundFrame]) {
        self.restoredSnapshot = restoredSnapshot
        self.frames = frames
    }
}
