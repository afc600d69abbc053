/// Decides when the acknowledgements of what a subscribe-only connection received may leave.
///
/// libmosquitto queues a message's PUBACK before it calls the message handler, and writes it at
/// the next `mosquitto_loop_write`. ``ClientCore`` reads the socket in groups and writes the
/// group's PUBACKs at its end; with a gate it first asks ``mayAcknowledge()`` on the network
/// thread. True: the PUBACKs are written. False: the connection is closed without writing them,
/// so the broker keeps the group's messages in the session and delivers them again to whoever
/// resumes it (this client after a reconnect, or another that took the session over).
///
/// While the gate is asked, the network thread reads nothing and sends nothing, keepalive
/// included: an implementation must answer well within the keepalive.
public protocol AcknowledgementGate: Sendable {
    /// Whether the messages handed over so far may be acknowledged; may block the network thread
    /// (bounded well under the keepalive).
    func mayAcknowledge() -> Bool
    /// The client is stopping: a wait in ``mayAcknowledge()`` ends at once with true, as without a gate.
    func interrupt()
}
