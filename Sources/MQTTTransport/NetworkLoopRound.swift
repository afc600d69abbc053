#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One round of the network loop over libmosquitto's external-loop API, as pure rules: what to
/// wait for on the connection's socket, and which libmosquitto calls to make, in order, for what
/// `poll()` reported. ``ClientCore`` waits and calls; the rules are tested without a socket.
///
/// They are `mosquitto_loop`'s (libmosquitto 2.0's `lib/loop.c`) with `poll()` in place of
/// `select()`, which cannot watch a descriptor numbered 1024 or more (`mosquitto_loop` then
/// fails every round with `MOSQ_ERR_INVAL`, so such a client never connects):
/// - wait for reading always, for writing only while libmosquitto holds something to write
///   (`mosquitto_want_write`);
/// - readable: `mosquitto_loop_read`; a hang-up or an error counts as readable, so the read
///   meets the end of the connection and libmosquitto reports it;
/// - writable, or woken because another thread queued a packet: `mosquitto_loop_write`;
/// - every round, last: `mosquitto_loop_misc` (the keepalive: PINGREQ when due, the connection
///   dropped when the PINGRESP is late).
///
/// While a TLS handshake is pending `mosquitto_loop_write` writes nothing, and only
/// `mosquitto_loop_read` drives the handshake (`mosquitto_loop` called the handshake step
/// directly when writable). So before CONNACK a writable round also reads when libmosquitto
/// still wants to write after the write call (``Call/handshake``).
enum NetworkLoopRound {
    /// A libmosquitto call of a round.
    enum Call: Equatable {
        /// `mosquitto_loop_read`.
        case read
        /// `mosquitto_loop_write`.
        case write
        /// `mosquitto_loop_read` if `mosquitto_want_write` still holds: a TLS handshake that
        /// waits to write.
        case handshake
        /// `mosquitto_loop_misc`.
        case housekeeping
    }

    /// How a round first waits on the socket.
    enum Wait: Equatable {
        /// `poll()` until the socket or the wake-up is ready, at most 100 ms.
        case block
        /// `poll()` without waiting: the last round read, so more may be queued in the socket.
        /// If nothing is, the thread pauses for the coalescing interval (woken early by
        /// ``LoopWakeup``), then blocks: what arrived meanwhile is read in one go.
        case checkThenPause
    }

    /// The first wait of a round: a connection that coalesces (`coalescing` seconds > 0) and
    /// has read since its last pause checks before it blocks. Never before CONNACK: the
    /// handshake is not held back.
    static func wait(readSincePause: Bool, coalescing: Double, connecting: Bool) -> Wait {
        readSincePause && coalescing > 0 && !connecting ? .checkThenPause : .block
    }

    /// The `poll()` events to wait for on the socket.
    static func interest(wantWrite: Bool) -> Int16 {
        Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0)
    }

    /// The calls, in order, for the socket's `revents` and whether the loop was `woken`;
    /// `connecting` until CONNACK. The caller stops at the first call that fails or closes the
    /// socket, as `mosquitto_loop` does.
    static func calls(socketEvents: Int16, woken: Bool, connecting: Bool) -> [Call] {
        var calls: [Call] = []
        if socketEvents & Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL) != 0 {
            calls.append(.read)
        }
        if woken || socketEvents & Int16(POLLOUT) != 0 {
            calls.append(.write)
            if connecting { calls.append(.handshake) }
        }
        calls.append(.housekeeping)
        return calls
    }
}
