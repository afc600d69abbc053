import TelemetryCore

/// What a device's new owner has of it when it takes it over (partitioned mode), given to
/// ``DeviceHandover/gained(_:state:processor:)`` after the worker restored what it could.
public struct HandedOverState: Sendable {
    /// Whether the previous owner's snapshot (from `gateway/cluster/state/{id}`, or with the
    /// shared store the one its claim returned) was restored
    /// into the processor before the call.
    public var restoredSnapshot: Bool
    /// The frames to replay, in arrival order: with a restored snapshot, those received after
    /// it that can change a snapshot (the previous owner had processed them, they are not in
    /// the snapshot yet); without, the device's latest context frames (hello, status,
    /// authorization, workout, headphone connection).
    public var frames: [InboundFrame]

    /// Creates the state.
    public init(restoredSnapshot: Bool, frames: [InboundFrame]) {
        self.restoredSnapshot = restoredSnapshot
        self.frames = frames
    }
}
