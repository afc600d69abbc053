/// Merges the three signals about a device's headphones into one connection state: the
/// bridge's explicit `headphone/connection` events, the silence of `headphone/motion`, and the
/// bridge's own presence (`status`).
///
/// Rules (`docs/headphones.md`):
/// - `connected` event → connected (`event`). `disconnected` event → disconnected, `earRemoved`
///   when motion from a bud arrived since the connection began (automatic ear detection: the
///   buds were taken out), else `event`.
/// - Connected and no motion for longer than ``streamTimeout`` (gateway clock, measured from the
///   last sample's or the connect event's arrival) → disconnected (`streamTimeout`), fired by
///   ``tick(now:)`` since a silent stream sends nothing.
/// - Disconnected (or never known) and motion keeps arriving for ``resumeSpan`` of sample time,
///   without a gap longer than ``streamTimeout`` → connected (`streamResumed`). One late sample,
///   or a late batch shorter than the span, does not flap the state.
/// - `status` offline → disconnected (`deviceOffline`). `status` online changes nothing (the
///   bridge reports the headphones itself).
/// - While disconnected, a more definitive reason replaces a weaker one (timeout < event or
///   earRemoved < deviceOffline) and is published; anything else that does not change the
///   state publishes nothing.
/// - Stale signals are ignored: an event or dated status older than the newest dated signal
///   already applied (device wall clock). A status without a date (an MQTT will) is applied
///   as it arrives and does not move that mark (it is on the gateway's clock, not the device's).
/// - A device that never sent a headphone signal is not tracked: its `status` publishes nothing.
///
/// Pure: time comes in as values; the gateway clock (`receivedAt`, `now`) is only compared
/// with itself, sample timestamps only with themselves, device dates only with themselves.
public struct HeadphoneConnectionTracker: Sendable, Codable {
    /// Silence, in seconds of the gateway clock, after which a connection times out.
    public let streamTimeout: Double
    /// Seconds of sample time motion must last to count as a resumed connection.
    public let resumeSpan: Double

    /// The current state; nil until the first headphone signal.
    public private(set) var state: HeadphoneConnectionState?
    /// Why the state was set; nil until the first transition.
    public private(set) var reason: HeadphoneConnectionReason?
    /// The version of the last transition (0 before any).
    public private(set) var version: UInt64 = 0
    /// The newest device wall-clock date applied (events and dated offline statuses).
    public private(set) var latestSignalDate: Double?

    /// Gateway time of the last sample or connect event while connected.
    private var lastActivity: Double?
    /// What the last activity was, for the timeout's event id.
    private var lastActivityKey = ""
    /// Timestamp of the last sample while connected.
    private var lastSampleTimestamp: Double?
    /// Whether a sample from a bud (left or right) arrived since the connection began.
    private var streamedFromBud = false
    /// Motion seen while not connected, possibly a resumption.
    private var candidate: ResumeCandidate?

    private struct ResumeCandidate: Sendable, Codable {
        var startTimestamp: Double
        var lastTimestamp: Double
        var lastReceivedAt: Double
    }

    /// Creates a tracker with no knowledge of the headphones.
    /// - Parameters:
    ///   - streamTimeout: silence in seconds (gateway clock) before `streamTimeout`.
    ///   - resumeSpan: seconds of sample time of motion before `streamResumed`.
    public init(streamTimeout: Double, resumeSpan: Double) {
        self.streamTimeout = streamTimeout
        self.resumeSpan = resumeSpan
    }

    /// Whether the headphones are connected now.
    public var isConnected: Bool { state == .connected }

    // MARK: Signals

    /// Applies a `headphone/connection` event.
    /// - Parameters:
    ///   - event: connected or disconnected, with the device's date.
    ///   - receivedAt: arrival time, gateway clock (starts the silence clock of a connect).
    /// - Returns: the transition to publish, if the state or reason changed.
    public mutating func receive(_ event: HeadphoneConnectionEvent, receivedAt: Double) -> HeadphoneConnectionTransition? {
        guard acceptDate(event.date) else { return nil }
        let key = "event|\(event.kind.rawValue)|\(event.date)"
        switch event.kind {
        case .connected:
            guard state != .connected else { return nil }
            beginConnection(at: receivedAt, key: key, fromBud: false)
            return transition(.connected, .event, clock: receivedAt, date: event.date, key: key)
        case .disconnected:
            if state == .connected {
                let reason: HeadphoneConnectionReason = streamedFromBud ? .earRemoved : .event
                endConnection()
                return transition(.disconnected, reason, clock: receivedAt, date: event.date, key: key)
            }
            candidate = nil
            guard state == nil || (reason?.rank ?? 0) < HeadphoneConnectionReason.event.rank else { return nil }
            return transition(.disconnected, .event, clock: receivedAt, date: event.date, key: key)
        }
    }

    /// Applies the bridge's presence.
    /// - Parameters:
    ///   - status: online or offline, with the device's date if any.
    ///   - receivedAt: arrival time, gateway clock (stands in for a missing date).
    /// - Returns: the transition to publish, if the state or reason changed.
    public mutating func receive(_ status: DeviceStatus, receivedAt: Double) -> HeadphoneConnectionTransition? {
        guard status.state == .offline else { return nil }
        if let date = status.date, !acceptDate(date) { return nil }
        guard state != nil else { return nil }
        candidate = nil
        let date = status.date ?? receivedAt
        let key = "status|offline|\(date)"
        if state == .connected {
            endConnection()
        } else if (reason?.rank ?? 0) >= HeadphoneConnectionReason.deviceOffline.rank {
            return nil
        }
        return transition(.disconnected, .deviceOffline, clock: receivedAt, date: date, key: key)
    }

    /// Applies one motion sample. Pass only fresh samples (newer than every sample before),
    /// oldest first.
    /// - Parameters:
    ///   - timestamp: the sample's timestamp, s since boot.
    ///   - sensorLocation: which bud produced it.
    ///   - receivedAt: arrival time of its frame, gateway clock.
    /// - Returns: a `streamResumed` transition when this sample completes a resumption.
    public mutating func receiveSample(timestamp: Double, sensorLocation: SensorLocation, receivedAt: Double) -> HeadphoneConnectionTransition? {
        let key = "sample|\(timestamp)"
        if state == .connected {
            lastActivity = receivedAt
            lastActivityKey = key
            lastSampleTimestamp = timestamp
            if sensorLocation != .default { streamedFromBud = true }
            return nil
        }
        if var current = candidate,
            receivedAt - current.lastReceivedAt <= streamTimeout, timestamp - current.lastTimestamp <= streamTimeout
        {
            current.lastTimestamp = timestamp
            current.lastReceivedAt = receivedAt
            candidate = current
        } else {
            candidate = ResumeCandidate(startTimestamp: timestamp, lastTimestamp: timestamp, lastReceivedAt: receivedAt)
        }
        guard let current = candidate, timestamp - current.startTimestamp >= resumeSpan - Self.timestampTolerance else { return nil }
        beginConnection(at: receivedAt, key: key, fromBud: sensorLocation != .default)
        lastSampleTimestamp = timestamp
        return transition(.connected, .streamResumed, clock: receivedAt, date: receivedAt, timestamp: timestamp, key: "resumed|\(timestamp)")
    }

    /// Lets the silence timeout fire.
    /// - Parameter now: the gateway's current time. A `now` at `Double.greatestFiniteMagnitude`
    ///   (the worker's final flush at shutdown) is not silence and fires nothing.
    /// - Returns: a `streamTimeout` transition when the stream has been silent too long.
    public mutating func tick(now: Double) -> HeadphoneConnectionTransition? {
        guard now < .greatestFiniteMagnitude, state == .connected, let lastActivity, now - lastActivity > streamTimeout else { return nil }
        let timestamp = lastSampleTimestamp
        let key = "timeout|\(lastActivityKey)"
        endConnection()
        return transition(.disconnected, .streamTimeout, clock: now, date: lastActivity + streamTimeout, timestamp: timestamp, key: key)
    }

    /// Sample timestamps are written with µs resolution; spans compare with this slack.
    static let timestampTolerance = 1e-6

    // MARK: Helpers

    /// Whether a dated signal is not older than the newest applied; records it if so.
    private mutating func acceptDate(_ date: Double) -> Bool {
        if let latestSignalDate, date < latestSignalDate { return false }
        latestSignalDate = date
        return true
    }

    private mutating func beginConnection(at receivedAt: Double, key: String, fromBud: Bool) {
        lastActivity = receivedAt
        lastActivityKey = key
        lastSampleTimestamp = nil
        streamedFromBud = fromBud
        candidate = nil
    }

    private mutating func endConnection() {
        lastActivity = nil
        lastSampleTimestamp = nil
        streamedFromBud = false
        candidate = nil
    }

    private mutating func transition(
        _ newState: HeadphoneConnectionState, _ newReason: HeadphoneConnectionReason, clock: Double, date: Double, timestamp: Double? = nil,
        key: String
    ) -> HeadphoneConnectionTransition {
        state = newState
        reason = newReason
        let milliseconds = clock.isFinite && clock > 0 ? UInt64(min(clock * 1000, 1e15).rounded()) : 0
        version = max(version + 1, milliseconds)
        return HeadphoneConnectionTransition(state: newState, reason: newReason, version: version, date: date, timestamp: timestamp, inputKey: key)
    }
}
