/// The access checks with per-device state, for one shard: tracks `hello`, `authorization` and
/// `workout` frames, checks every frame against the ``AccessPolicy`` and says when a device's
/// `gateway/{id}/availability` snapshot changed.
///
/// A pure value like ``FrameProcessor``: no clock, no I/O, no locks. Per frame, after decoding
/// and validation, call ``admit(_:from:update:receivedAt:)`` with the decoded control frame (if
/// the stream is `hello`, `authorization` or `workout`); drop and report a `.denied` frame, pass
/// an `.allowed` one to the derivations with its `maximumDepth`, and publish `availability` when
/// present. When the operator's files are reloaded, call ``replacePolicy(_:date:)`` between two
/// frames and publish the changes it returns.
public struct AccessControl: Sendable {
    /// The registry and capability table in force.
    public private(set) var policy: AccessPolicy
    /// The most devices whose state is kept; beyond it, control frames of new devices are
    /// accepted but not remembered, so their data fails with `notAvailable` (a flood of made-up
    /// ids in an open registry cannot grow memory).
    public let maxTrackedDevices: Int
    /// Seconds of gateway time after a workout session stopped during which its batched frames
    /// are still admitted (`session.endGrace`, ``WorkoutEndGrace``).
    public let sessionEndGrace: Double

    /// What is kept of one device; it survives a restart or an eviction in a ``DeviceSnapshot``.
    public struct Tracked: Sendable, Equatable, Codable {
        var state = DeviceAccessState()
        /// The session rule's view of the workout: its end and the finish still owed.
        var session: WorkoutEndGrace
        /// Resolved from the latest hello with the current table; nil without a hello. Not
        /// stored: resolved again on restore, against the table in force then.
        var capabilities: Set<Capability>?
        /// The last snapshot returned for publishing.
        var published: AvailabilitySnapshot?

        private enum CodingKeys: String, CodingKey { case state, session, published }
    }

    private var devices = DeviceTable<Tracked>()
    /// Devices whose stopped session still owes its finish (``takeDueSessionFinishes(now:)``).
    private var pendingFinishes: Set<DeviceID> = []

    /// Creates the access control.
    /// - Parameters:
    ///   - policy: the registry and capability table.
    ///   - maxTrackedDevices: the most devices whose state is kept; defaults to 100,000.
    ///   - sessionEndGrace: the end grace of workout sessions, s; defaults to 2.
    public init(policy: AccessPolicy, maxTrackedDevices: Int = 100_000, sessionEndGrace: Double = 2) {
        self.policy = policy
        self.maxTrackedDevices = max(0, maxTrackedDevices)
        self.sessionEndGrace = sessionEndGrace
    }

    /// The number of devices whose state is kept.
    public var trackedDeviceCount: Int { devices.count }

    /// What is known about a device.
    /// - Parameter device: the device.
    /// - Returns: its state, or nil when no control frame of it was accepted (or it was not tracked).
    public func state(of device: DeviceID) -> DeviceAccessState? { devices[device]?.state }

    /// Whether the device has state (without copying it).
    public func tracks(_ device: DeviceID) -> Bool { devices.contains(device) }

    /// What is kept of a device, for a snapshot.
    public func tracked(_ device: DeviceID) -> Tracked? { devices[device] }

    /// Takes back a device's kept state (a restart or a return after eviction); its
    /// capabilities are resolved against the current table. Ignored when the device already
    /// has state or the tracked-device bound is reached.
    /// - Returns: whether it was restored.
    @discardableResult
    public mutating func restore(_ tracked: Tracked, of device: DeviceID) -> Bool {
        guard devices[device] == nil, devices.count < maxTrackedDevices else { return false }
        var restored = tracked
        restored.capabilities = tracked.state.descriptor.map { policy.capabilities.capabilities(for: $0) }
        devices[device] = restored
        if restored.session.finishPending { pendingFinishes.insert(device) }
        return true
    }

    /// Drops a device's state (evicted; a snapshot keeps it).
    public mutating func forget(_ device: DeviceID) {
        devices[device] = nil
        pendingFinishes.remove(device)
    }

    /// Checks a frame without changing any state.
    /// - Parameters:
    ///   - stream: the frame's stream.
    ///   - device: the device that sent it.
    ///   - receivedAt: when the gateway received it (the session's end grace); nil: no grace.
    ///   - firstTimestamp: a batched frame's first sample `timestamp` (the "predates the end" rule).
    /// - Returns: the verdict of the first failing check, or `.allowed` with the maximum depth.
    public func check(_ stream: InboundStream, from device: DeviceID, receivedAt: Double? = nil, firstTimestamp: Double? = nil) -> AccessVerdict {
        // One registry lookup per frame.
        let listed = policy.registry.devices[device]
        let entitlements = listed ?? (policy.registry.isOpen ? policy.registry.defaultEntitlements : nil)
        // Checked where the table keeps it (a method call on the lent value): binding the
        // device's state to a local copied it, with a retain of each string and set, per frame.
        if let verdict = devices[device]?.verdict(
            stream, from: device, entitlements: entitlements, fromDefaults: listed == nil, table: policy.capabilities, receivedAt: receivedAt,
            firstTimestamp: firstTimestamp)
        {
            return verdict
        }
        let untracked =
            devices.count >= maxTrackedDevices
            ? "no hello from device '\(device)' is known: the gateway already tracks the maximum of \(maxTrackedDevices) devices"
            : nil
        return AccessChecker.check(
            stream: stream, device: device, state: nil, entitlements: entitlements, resolvedCapabilities: nil, table: policy.capabilities,
            fromDefaults: listed == nil, untrackedDetail: untracked)
    }

    /// Checks a frame and, when it passes and is a control frame, records what it says.
    ///
    /// Frames failing the registry check change nothing. `update` must be the decoded frame of
    /// `stream` when `stream` is `hello`, `authorization` or `workout` (nil otherwise).
    /// - Parameters:
    ///   - stream: the frame's stream.
    ///   - device: the device that sent it.
    ///   - update: the decoded control frame, or nil for other streams.
    ///   - receivedAt: when the gateway received the frame, Unix epoch seconds (dates a `hello`'s
    ///     snapshot, and measures a session's end grace).
    ///   - batchTimestamps: a `batched/*` frame's first and last sample `timestamp`.
    /// - Returns: the verdict, the availability snapshot to publish if the frame changed it, and
    ///   whether the session must be finished after deriving the frame.
    public mutating func admit(
        _ stream: InboundStream,
        from device: DeviceID,
        update: AccessUpdate? = nil,
        receivedAt: Double,
        batchTimestamps: (first: Double, last: Double)? = nil
    ) -> AccessDecision {
        precondition(update == nil || update?.stream == stream, "the access update must come from the frame's own stream")
        let verdict = check(stream, from: device, receivedAt: receivedAt, firstTimestamp: batchTimestamps?.first)
        guard verdict.isAllowed else { return AccessDecision(verdict: verdict) }
        if StreamRequirement.of(stream).needsRunningWorkout, let finishes = devices[device]?.session.admitted(lastTimestamp: batchTimestamps?.last) {
            return AccessDecision(verdict: verdict, finishesSession: finishes)
        }
        guard let update else { return AccessDecision(verdict: verdict) }
        return AccessDecision(verdict: verdict, availability: record(update, from: device, receivedAt: receivedAt))
    }

    /// The devices whose stopped workout session is now more than ``sessionEndGrace`` old and
    /// still owes its finish; each is returned once.
    /// - Parameter now: the gateway's time, Unix epoch seconds.
    /// - Returns: the devices, sorted by id (deterministic).
    public mutating func takeDueSessionFinishes(now: Double) -> [DeviceID] {
        guard !pendingFinishes.isEmpty else { return [] }
        var due: [DeviceID] = []
        for device in pendingFinishes where devices[device]?.session.takeDueFinish(now: now) ?? true {
            due.append(device)
        }
        pendingFinishes.subtract(due)
        return due.filter { devices[$0] != nil }.sorted { $0.rawValue < $1.rawValue }
    }

    /// Replaces the registry and capability table (after a reload) and re-resolves every tracked
    /// device; state learnt from frames is kept.
    /// - Parameters:
    ///   - policy: the new policy.
    ///   - date: when it took effect, Unix epoch seconds (dates the snapshots).
    /// - Returns: the snapshots that changed, sorted by device id, to publish.
    public mutating func replacePolicy(_ policy: AccessPolicy, date: Double) -> [AvailabilityChange] {
        self.policy = policy
        var changes: [AvailabilityChange] = []
        for device in devices.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var tracked = devices[device] else { continue }
            tracked.capabilities = tracked.state.descriptor.map { policy.capabilities.capabilities(for: $0) }
            if let change = republish(&tracked, device, date: date) { changes.append(change) }
            devices[device] = tracked
        }
        return changes
    }

    // MARK: Private

    private mutating func record(_ update: AccessUpdate, from device: DeviceID, receivedAt: Double) -> AvailabilityChange? {
        guard var tracked = devices[device] ?? (devices.count < maxTrackedDevices ? Tracked(session: WorkoutEndGrace(grace: sessionEndGrace)) : nil)
        else { return nil }
        let date: Double
        switch update {
        case .hello(let descriptor, let retained):
            tracked.state.apply(hello: descriptor, retained: retained)
            tracked.capabilities = policy.capabilities.capabilities(for: descriptor)
            date = receivedAt
        case .authorization(let change):
            tracked.state.apply(authorization: change)
            date = change.date
        case .workout(let event):
            if tracked.state.apply(workout: event) != .stale {
                tracked.session.apply(event, receivedAt: receivedAt)
                if tracked.session.finishPending { pendingFinishes.insert(device) } else { pendingFinishes.remove(device) }
            }
            date = event.date
        }
        let change = republish(&tracked, device, date: date)
        devices[device] = tracked
        return change
    }

    /// The device's current snapshot when it differs from the last one returned.
    private func republish(_ tracked: inout Tracked, _ device: DeviceID, date: Double) -> AvailabilityChange? {
        guard let capabilities = tracked.capabilities,
            let snapshot = AvailabilitySnapshot(
                device: device, state: tracked.state, entitlements: policy.registry.entitlements(for: device), capabilities: capabilities),
            snapshot != tracked.published
        else { return nil }
        tracked.published = snapshot
        return AvailabilityChange(snapshot: snapshot, date: date)
    }
}

extension AccessControl.Tracked {
    /// The checks for this device, its state read in place.
    fileprivate func verdict(
        _ stream: InboundStream, from device: DeviceID, entitlements: Set<Entitlement>?, fromDefaults: Bool, table: CapabilityTable,
        receivedAt: Double?, firstTimestamp: Double?
    ) -> AccessVerdict {
        AccessChecker.check(
            stream: stream, device: device, knownState: state, entitlements: entitlements, resolvedCapabilities: capabilities, table: table,
            fromDefaults: fromDefaults, endGraceAdmits: endGraceAdmits(receivedAt: receivedAt, firstTimestamp: firstTimestamp))
    }

    /// Whether the session's end grace admits a batched frame although no workout runs.
    private func endGraceAdmits(receivedAt: Double?, firstTimestamp: Double?) -> Bool {
        guard let receivedAt else { return false }
        switch session.admission(receivedAt: receivedAt, firstTimestamp: firstTimestamp) {
        case .withinGrace, .predatesEnd: return true
        case .running, .refused: return false
        }
    }
}
