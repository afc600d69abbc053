/// A change of this instance's roles, for a whole ownership partition at once
/// (``OwnershipPartitions``). The router and the workers act on it for every device whose
/// partition it names.
public enum OwnershipChange: Sendable, Equatable {
    /// The partition's devices are this instance's from now on, under `epoch`: restore their
    /// snapshots (and their retained outputs) from the store before processing more of them.
    case gained(partition: Int, epoch: Int64)
    /// The partition's devices are about to be this instance's: process them without publishing.
    case warming(partition: Int)
    /// The partition's devices are another instance's now (or, after a warm-up that did not
    /// end in a hand-over, nobody's here): drop their state and forget their retained outputs.
    case lost(partition: Int)

    /// The partition it changes.
    public var partition: Int {
        switch self {
        case .gained(let partition, _), .warming(let partition), .lost(let partition): partition
        }
    }
}
