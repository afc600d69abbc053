/// The end of one device's workout session as the `batched/*` session rule sees it: when it
/// stopped running, and whether the derivers still owe it its finish.
///
/// `CMBatchedSensorManager` delivers one batch per second, about a second after its samples, so
/// the batch holding a session's last samples arrives after the `paused`/`ended` frame. A batched
/// frame that arrives after the end is still admitted
/// - **within the grace**: it arrived at most ``grace`` seconds (gateway clock) after the frame
///   that stopped the session, limit included; or
/// - **predating the end**: its first sample's `timestamp` is before the end's `date` on the
///   device's clock (mapped with a ``DeviceClockAnchor`` fed by the `running` frame's date and
///   the batches that arrived while it ran).
///
/// Then the session finishes: ``takeDueFinish(now:)`` says so once a tick is more than ``grace``
/// after the end; a batch admitted after that finish asks for another one at once.
///
/// The anchor is a lower bound of the boot epoch, so the end's timestamp is estimated late by at
/// most the gap between the `running` frame and the first batch's last sample (≈ 1 s): a batch
/// up to that much after the end can pass as predating it. The watch produces no batches once
/// its session stopped, so what arrives after the end is the end's own backlog.
///
/// Pure: time arrives with frames and ticks.
public struct WorkoutEndGrace: Sendable, Equatable, Codable {
    /// How a batched frame fares against the session rule.
    public enum Admission: Sendable, Equatable {
        /// A workout is running.
        case running
        /// Arrived within the grace after the end.
        case withinGrace
        /// Arrived later, but its samples began before the end on the device's clock.
        case predatesEnd
        /// No running session and no reason to admit it.
        case refused
    }

    /// Seconds of gateway time after the end during which batched frames are still admitted
    /// (`session.endGrace`).
    public let grace: Double
    /// Whether the latest applied workout state is `running`.
    public private(set) var isRunning = false
    /// When the gateway received the frame that stopped the running session, Unix epoch seconds.
    public private(set) var endedAt: Double?
    /// The device's `date` of that frame.
    public private(set) var endDate: Double?
    /// Whether the session stopped and its finish is still owed to the derivers.
    public private(set) var finishPending = false
    /// The device's boot-to-wall-clock mapping for the "predates the end" rule.
    public private(set) var clock = DeviceClockAnchor()

    /// Creates the state of a device without a session.
    /// - Parameter grace: seconds of gateway time (≥ 0).
    public init(grace: Double) {
        self.grace = max(0, grace)
    }

    /// Notes a workout frame the access state applied (a stale one must not be passed).
    /// - Parameters:
    ///   - event: the applied event.
    ///   - receivedAt: when the gateway received it.
    public mutating func apply(_ event: WorkoutEvent, receivedAt: Double) {
        switch event.state {
        case .running:
            clock.observe(date: event.date)
            isRunning = true
            endedAt = nil
            endDate = nil
            finishPending = false
        case .paused, .ended:
            // A pause then an end: the session stopped at the pause.
            if isRunning {
                endedAt = receivedAt
                endDate = event.date
                finishPending = true
            }
            isRunning = false
        }
    }

    /// How a batched frame fares.
    /// - Parameters:
    ///   - receivedAt: when the gateway received it.
    ///   - firstTimestamp: its first sample's `timestamp`, seconds since boot.
    /// - Returns: the admission.
    public func admission(receivedAt: Double, firstTimestamp: Double?) -> Admission {
        if isRunning { return .running }
        guard let endedAt, let endDate else { return .refused }
        if receivedAt - endedAt <= grace { return .withinGrace }
        if let firstTimestamp, let end = clock.timestamp(ofDate: endDate), firstTimestamp < end { return .predatesEnd }
        return .refused
    }

    /// Notes an admitted batched frame.
    /// - Parameter lastTimestamp: its last sample's `timestamp` (refines the clock while running).
    /// - Returns: whether the derivers must finish the session after deriving it (it was admitted
    ///   after the finish already ran).
    public mutating func admitted(lastTimestamp: Double?) -> Bool {
        if isRunning {
            if let lastTimestamp { clock.observe(timestamp: lastTimestamp) }
            return false
        }
        return !finishPending
    }

    /// Whether the finish is due at `now` (more than ``grace`` after the end); answers true once.
    /// - Parameter now: the gateway's time.
    /// - Returns: true when the derivers must finish the session now.
    public mutating func takeDueFinish(now: Double) -> Bool {
        guard finishPending, let endedAt, now - endedAt > grace else { return false }
        finishPending = false
        return true
    }
}
