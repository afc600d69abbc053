/// What an instance does with a device's frames (``OwnershipPort/role(of:)``).
public enum DeviceRole: Sendable, Equatable {
    /// Process, publish and journal them; outputs carry `epoch`, which grows at every change of
    /// owner, so consumers keep the greater one when two instances overlap.
    case owner(epoch: Int64)
    /// Process them without publishing (the next owner warming up before a hand-over), so the
    /// state that spans frames (a swing, a dive) is whole at the switch.
    case warming
    /// Another instance's: dropped before the journal.
    case none
}
