import MQTTTransport
import Synchronization
import TelemetryCore

/// Calls `onDone` once every part it waits for has finished well: the publishes of one frame's
/// outputs acknowledged (or refused by the broker, which sending again would not change) and the
/// frame itself processed. An abandoned publish (shutdown) never completes it, so the frame's
/// journal record stays for the next start.
final class ReleaseCountdown: Sendable {
    /// Parts not finished yet. A counter guards nothing else, so it is an atomic rather than a
    /// `LockedState`: every frame makes two countdowns, and each lock was two more allocations
    /// (the box and its mutex) and a lock per part.
    private let remaining: Atomic<Int>
    /// Whether a part was an output withheld because this run no longer held its partition.
    private let fenced = Atomic<Bool>(false)
    private let onDone: @Sendable (_ fenced: Bool) -> Void

    /// Creates a countdown of `parts` parts.
    convenience init(parts: Int, onDone: @escaping @Sendable () -> Void) {
        self.init(parts: parts, onSettled: { _ in onDone() })
    }

    /// Creates a countdown of `parts` parts whose end learns whether one of them was fenced.
    init(parts: Int, onSettled: @escaping @Sendable (_ fenced: Bool) -> Void) {
        remaining = Atomic(parts)
        onDone = onSettled
        if parts == 0 { onSettled(false) }
    }

    /// One more part to wait for. Only while another part is surely unfinished (the frame's own
    /// "processed" part, done last in `ShardWorker.apply`), so the count cannot have reached 0.
    func addPart() {
        remaining.add(1, ordering: .relaxed)
    }

    /// One part finished well.
    func partDone() {
        // Acquiring and releasing: whoever finishes the last part sees what the others did.
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { onDone(fenced.load(ordering: .relaxed)) }
    }

    /// One part finished by being withheld from a lease this run no longer holds.
    func partFenced() {
        // Relaxed: the subtraction that follows orders it before the last part's load.
        fenced.store(true, ordering: .relaxed)
        partDone()
    }

    /// The handler to give ``MQTTClient/send(_:onComplete:)`` for one part. A QoS 0 message is
    /// at most once by contract (head pose): any outcome completes it, or one dropped on a
    /// reconnect would pin its frame in the journal until the next start.
    func publishHandler(qos: MQTTQoS) -> MQTTClient.CompletionHandler {
        { outcome in
            if outcome != .abandoned || qos == .atMostOnce { self.partDone() }
        }
    }
}
