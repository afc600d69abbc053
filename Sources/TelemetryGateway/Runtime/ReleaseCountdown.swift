import Locking
import MQTTTransport
import TelemetryCore

/// Calls `onDone` once every part it waits for has finished well: the publishes of one frame's
/// outputs acknowledged (or refused by the broker, which sending again would not change) and the
/// frame itself processed. An abandoned publish (shutdown) never completes it, so the frame's
/// journal record stays for the next start.
final class ReleaseCountdown: Sendable {
    private let remaining: LockedState<Int>
    private let onDone: @Sendable () -> Void

    /// Creates a countdown of `parts` parts.
    init(parts: Int, onDone: @escaping @Sendable () -> Void) {
        remaining = LockedState(parts)
        self.onDone = onDone
        if parts == 0 { onDone() }
    }

    /// One part finished well.
    func partDone() {
        let done = remaining.withLock { count -> Bool in
            count -= 1
            return count == 0
        }
        if done { onDone() }
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
