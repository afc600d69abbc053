import Ownership

/// Under which role a frame's outputs leave this instance: decided once, where the frame is
/// routed (``FrameGate``), carried with it, and applied only where outputs leave (the
/// ``OutputSink``). The stages in between pass it on without looking inside.
struct Publication: Sendable {
    /// The device's role when its frame arrived; nil to go by each device's role when its
    /// outputs leave (``OwnershipPort/visible(_:receivedAs:)``).
    let role: DeviceRole?

    /// By each device's role when the outputs leave: a single gateway's every output (it owns
    /// every device), a replayed frame's, a tick's and a restore's.
    static let current = Publication(role: nil)

    /// The outputs of a frame this instance processes only to warm its state up (a partition
    /// it is about to take over): nobody publishes them from here yet.
    var isWarming: Bool { role == .warming }
}
