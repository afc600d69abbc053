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

    private struct Tracked: Sendable {
        var state = DeviceAccessState()
        /// Resolved from the latest hello with the current table; nil without a hello.
        var capabilities: Set<Capability>?
        /// The last snapshot returned for publishing.
        var published: AvailabilitySnapshot?
    }

    private var devices: [DeviceID: Tracked] = [:]

    /// Creates the access control.
    /// - Parameters:
    ///   - policy: the registry and capability table.
    ///   - maxTrackedDevices: the most devices whose state is kept; defaults to 100,000.
    public init(policy: AccessPolicy, maxTrackedDevices: Int = 100_000) {
        self.policy = policy
        self.maxTrackedDevices = max(0, maxTrackedDevices)
    }

    /// The number of devices whose state is kept.
    public var trackedDeviceCount: Int { devices.count }

    /// What is known about a device.
    /// - Parameter device: the device.
    /// - Returns: its state, or nil when no control frame of it was accepted (or it was not tracked).
    public func state(of device: DeviceID) -> DeviceAccessState? { devices[device]?.state }

    /// The last availability snapshot returned for the device.
    /// - Parameter device: the device.
    /// - Returns: the snapshot, or nil before its first `hello`.
    public func availability(of device: DeviceID) -> AvailabilitySnapshot? { devices[device]?.published }

    /// Checks a frame without changing any state.
    /// - Parameters:
    ///   - stream: the frame's stream.
    ///   - device: the device that sent it.
    /// - Returns: the verdict of the first failing check, or `.allowed` with the maximum depth.
    public func check(_ stream: InboundStream, from device: DeviceID) -> AccessVerdict {
        let tracked = devices[device]
        let untracked =
            tracked == nil && devices.count >= maxTrackedDevices
            ? "no hello from device '\(device)' is known: the gateway already tracks the maximum of \(maxTrackedDevices) devices"
            : nil
        // One registry lookup per frame.
        let listed = policy.registry.devices[device]
        return AccessChecker.check(
            stream: stream, device: device, state: tracked?.state,
            entitlements: listed ?? (policy.registry.isOpen ? policy.registry.defaultEntitlements : nil),
            resolvedCapabilities: tracked?.capabilities, table: policy.capabilities, fromDefaults: listed == nil,
            untrackedDetail: untracked)
    }

    /// Checks a frame and, when it passes and is a control frame, records what it says.
    ///
    /// Frames failing the registry check change nothing. `update` must be the decoded frame of
    /// `stream` when `stream` is `hello`, `authorization` or `workout` (nil otherwise).
    /// - Parameters:
    ///   - stream: the frame's stream.
    ///   - device: the device that sent it.
    ///   - update: the decoded control frame, or nil for other streams.
    ///   - receivedAt: when the gateway received the frame, Unix epoch seconds (dates a `hello`'s snapshot).
    /// - Returns: the verdict, and the availability snapshot to publish if the frame changed it.
    public mutating func admit(
        _ stream: InboundStream,
        from device: DeviceID,
        update: AccessUpdate? = nil,
        receivedAt: Double
    ) -> AccessDecision {
        precondition(update == nil || update?.stream == stream, "the access update must come from the frame's own stream")
        let verdict = check(stream, from: device)
        guard verdict.isAllowed, let update else { return AccessDecision(verdict: verdict) }
        return AccessDecision(verdict: verdict, availability: record(update, from: device, receivedAt: receivedAt))
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
        guard var tracked = devices[device] ?? (devices.count < maxTrackedDevices ? Tracked() : nil) else { return nil }
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
            tracked.state.apply(workout: event)
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
