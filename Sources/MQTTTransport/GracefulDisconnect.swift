/// The steps of stopping a connection without the broker taking it for lost, as a pure state
/// machine: the owner reports what it observed, this type says what to do next and when to stop
/// trying. ``ClientCore`` performs the steps with libmosquitto and a duplicate of its socket.
///
/// Two behaviours of libmosquitto 2.0 would otherwise fire the will at a graceful stop under
/// load:
/// - `mosquitto_disconnect` marks the client disconnected at once but queues DISCONNECT behind
///   everything still unsent. Any packet read meanwhile (the PUBACK of a burst, a PINGRESP, an
///   inbound PUBLISH) is then a protocol error, and libmosquitto closes the socket without ever
///   sending the DISCONNECT. So from here on the owner only writes.
/// - Right after writing DISCONNECT libmosquitto closes the socket; acknowledgements still
///   unread make the kernel send a reset, and a broker still writing to us fails that write and
///   drops the connection as lost before reading the DISCONNECT. So the owner holds a duplicate
///   of the socket, half-closes it once DISCONNECT is out, and reads until the broker closes.
///
/// Every step is bounded by one deadline, fixed when the stop begins.
struct GracefulDisconnect: Equatable {
    /// How long a graceful stop may take before the connection is simply dropped.
    static let limit: Duration = .seconds(2)

    /// Where the stop stands.
    enum Stage: Equatable {
        /// DISCONNECT not handed to libmosquitto yet.
        case queueing
        /// libmosquitto is writing what it holds, DISCONNECT last; `holdingSocket` when the owner
        /// keeps a duplicate of the socket for the half-close.
        case writing(holdingSocket: Bool)
        /// DISCONNECT is out: half-closing our side, then reading until the broker closes.
        case draining
    }

    /// What the owner observed after the last step.
    enum Observation: Equatable {
        /// `mosquitto_disconnect` took the DISCONNECT; `holdingSocket` when a duplicate of the
        /// socket was taken before it.
        case queued(holdingSocket: Bool)
        /// `mosquitto_disconnect` refused (the connection was already gone).
        case notQueued
        /// A write round succeeded; `disconnectOut` when libmosquitto has closed its socket,
        /// which it does right after writing DISCONNECT.
        case wrote(disconnectOut: Bool)
        /// Writing failed: the connection is gone.
        case writeFailed
        /// Our side of the held socket is closed.
        case halfClosed
        /// The broker sent something (read and dropped).
        case readSome
        /// The broker closed the connection (or reading failed for good).
        case brokerClosed
        /// The deadline passed while waiting for the socket.
        case timedOut
    }

    /// What to do next.
    enum Step: Equatable {
        /// Wait until the socket takes data (at most until `until`), then let libmosquitto write.
        case write(until: ContinuousClock.Instant)
        /// Shut down the writing side of the held socket.
        case halfClose
        /// Wait until the broker sends something or closes (at most until `until`), then read.
        case read(until: ContinuousClock.Instant)
        /// Done: the broker had the DISCONNECT (or there was no connection to end).
        case finished
        /// DISCONNECT could not be written in time: the broker may publish the will.
        case gaveUp
    }

    let deadline: ContinuousClock.Instant
    private(set) var stage: Stage = .queueing

    /// Begins a stop at `now`, bounded by ``limit``.
    init(now: ContinuousClock.Instant, limit: Duration = Self.limit) {
        deadline = now + limit
    }

    /// Takes what the owner observed at `now`; returns the next step. After ``Step/finished`` or
    /// ``Step/gaveUp`` the stop is over.
    mutating func handle(_ observation: Observation, now: ContinuousClock.Instant) -> Step {
        switch (stage, observation) {
        case (.queueing, .queued(let holdingSocket)):
            stage = .writing(holdingSocket: holdingSocket)
            return .write(until: deadline)
        case (.writing(let holdingSocket), .wrote(disconnectOut: true)):
            // Without a duplicate there is nothing left to half-close or read.
            guard holdingSocket else { return .finished }
            stage = .draining
            return .halfClose
        case (.writing, .wrote(disconnectOut: false)):
            return now < deadline ? .write(until: deadline) : .gaveUp
        case (.writing, .writeFailed), (.writing, .timedOut):
            return .gaveUp
        case (.draining, .halfClosed):
            return .read(until: deadline)
        case (.draining, .readSome):
            return now < deadline ? .read(until: deadline) : .finished
        case (.queueing, .notQueued), (.draining, .brokerClosed), (.draining, .timedOut):
            return .finished
        default:
            // An observation that does not fit the stage: end rather than loop.
            return .finished
        }
    }
}
