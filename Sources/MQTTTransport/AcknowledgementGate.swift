/// Decides when the acknowledgements of what a subscribe-only connection received may leave.
///
/// libmosquitto queues a message's PUBACK before it calls the message handler, and writes it at
/// the next `mosquitto_loop_write`. ``ClientCore`` reads the socket in groups and writes the
/// group's PUBACKs at its end; with a gate it first asks ``decide(groupReadAt:waitingAtMost:)``
/// on the network thread, in short slices, until the gate decides. ``AcknowledgementDecision/acknowledge``:
/// the PUBACKs are written. ``AcknowledgementDecision/refuse``: the connection is closed without
/// writing them, so the broker keeps the group's messages in the session and delivers them
/// again to whoever resumes it (this client after a reconnect, or another that took the
/// session over). Between slices the client closes the same way if the broker closed the
/// connection meanwhile, so a lost connection is reported at once, not when the gate decides.
///
/// While the gate is asked, the network thread reads nothing and sends nothing, keepalive
/// included: an implementation must decide well within the keepalive.
public protocol AcknowledgementGate: Sendable {
    /// Whether the messages handed over so far may be acknowledged, waiting at most
    /// `waitingAtMost` for the answer; `groupReadAt` is when the group was read (the gate's own
    /// bound on the whole wait counts from it).
    func decide(groupReadAt: ContinuousClock.Instant, waitingAtMost: Duration) -> AcknowledgementDecision
    /// The client is stopping: a wait ends at once with ``AcknowledgementDecision/acknowledge``, as without a gate.
    func interrupt()
}

/// What ``AcknowledgementGate`` decided for a group.
public enum AcknowledgementDecision: Sendable, Equatable {
    /// Write the group's acknowledgements.
    case acknowledge
    /// Close the connection without them.
    case refuse
    /// Not yet: ask again.
    case undecided
}
