internal import CMosquitto
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Wakes the network thread from its `poll()` when another thread queued a packet.
///
/// In threaded mode libmosquitto only queues what other threads publish, subscribe or
/// unsubscribe; its loop writes it. `mosquitto_loop` was woken by a socket pair libmosquitto
/// keeps to itself, which the external loop cannot reach, so an eventfd (one descriptor) stands
/// in for it: ``signal()`` after handing libmosquitto a packet, ``drain()`` on the network thread
/// before it writes. Signals between two drains cost one system call, not one each.
final class LoopWakeup: Sendable {
    /// The descriptor the network thread polls for reading.
    let descriptor: Int32
    /// A signal is written and not drained yet.
    private let pending = Atomic<Bool>(false)

    init() throws(MQTTTransportError) {
        descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else {
            throw MQTTTransportError(.library, "could not create the network loop's eventfd: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Makes the network thread's current or next wait return at once (any thread).
    func signal() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Takes the signals so far (network thread), before acting on them: a packet queued after
    /// this is signalled again and wakes the next wait.
    func drain() {
        // An exchange, not a store: it reads the latest signal, so what its thread queued before
        // signalling is visible to the write that follows.
        _ = pending.exchange(false, ordering: .acquiringAndReleasing)
        var count: UInt64 = 0
        _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
}
