/// The per-shard processing core: checks inbound frames, tracks device presence and rate-limits
/// error reports. Pure: no I/O and no clock (time comes in as ``InboundFrame/receivedAt`` and `now`).
///
/// Each frame passes, in order:
/// 1. topic and id syntax (``TopicScheme/parseInbound(_:)``); failures are reported on `gateway/errors`;
/// 2. payload size (``Configuration/maxPayloadBytes``);
/// 3. content type (``PayloadEncoding``): none or `application/json` (optionally `; charset=utf-8`),
///    or `application/x-protobuf` for the high-rate streams (docs/binary-encoding.md);
/// 4. decoding into the stream's model (``FrameDecoder``) and validation (``FrameValidator`` with
///    ``Configuration/validationLimits``);
/// 5. sequence tracking (``SequenceTracker``): gaps, duplicates and reorders are counted, not dropped;
/// 6. the access checks (``AccessControl``), when a policy is set: registry, availability,
///    authorization, entitlement, workout session (with the session's end grace);
/// 7. the `status` stream: the decoded ``DeviceStatus`` drives `gateway/{id}/connection`;
/// 8. the derivations (``DerivationEngine``); a workout session that stopped is finished once its
///    end grace is over (``flush(now:)``), so the batch arriving after `ended` still counts.
///
/// Accepted frames carry their model in ``FrameResult/frame``. Failures from step 2 on are reported
/// on `gateway/{id}/errors` as `invalidPayload` with the problem's detail. All reports are aggregated with
/// ``ErrorAggregator``: the first per key and interval is returned at once, the rest are counted and
/// returned by ``flush(now:)``, which the owner calls at ``nextDeadline()``. Event ids derive only from
/// the input, so reprocessing the same frames gives the same messages.
///
/// With ``Configuration/deadLetters`` set, every rejected frame also yields a dead letter: its
/// original payload on `gateway/{id}/dead-letter` (`gateway/dead-letter` without a valid id) with
/// the reasons as MQTT 5 user properties, at most `maxPerSecond` per device and second
/// (``FrameResult/deadLetter`` says whether it was published or dropped).
///
/// One instance belongs to one shard (one task): it is a value type with no locks.
public struct FrameProcessor: Sendable {
    /// The settings it was created with.
    public let configuration: Configuration

    private var topicErrors: ErrorAggregator<TopicErrorKey>
    private var deviceErrors: ErrorAggregator<DeviceErrorKey>
    private var presence: [DeviceID: ConnectionState] = [:]
    /// How many values of `presence` are `connected` (kept by ``setPresence(_:of:)``).
    private var connectedDevices = 0
    private var sequences: SequenceTracker
    /// Per-device access state and the policy it is checked against (nil: checks skipped).
    private var access: AccessControl?
    /// Per-device derivation state (depth states, swings, head pose, …).
    private var derivations: DerivationEngine
    /// Rate limit of dead letters (nil: dead letters are off).
    private var deadLetterLimiter: DeadLetterLimiter?
    /// When each device with state last had a frame accepted (idle eviction).
    private var lastSeen: [DeviceID: Double] = [:]
    /// The journal sequence of the last frame applied to each device with state.
    private var appliedJournalSequences: [DeviceID: UInt64] = [:]
    /// Devices whose snapshot may differ from the one last taken (``takeChangedDevices()``).
    private var changed: Set<DeviceID> = []

    /// The longest topic kept in error keys and reports; MQTT topics may be 64 KiB of attacker-chosen text.
    static let maxReportedTopicScalars = 256

    /// Creates a processor.
    ///
    /// Traps on a non-positive error report interval or key bound (programmer error): check
    /// ``Configuration/configurationProblem`` when the settings come from an operator.
    /// - Parameter configuration: the settings.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        topicErrors = ErrorAggregator(interval: configuration.errorReportInterval, maxKeys: configuration.maxErrorKeys)
        deviceErrors = ErrorAggregator(interval: configuration.errorReportInterval, maxKeys: configuration.maxErrorKeys)
        sequences = SequenceTracker(maxTrackedPairs: configuration.maxTrackedSequences)
        access = configuration.accessPolicy.map {
            AccessControl(policy: $0, maxTrackedDevices: configuration.maxTrackedDevices, sessionEndGrace: configuration.derivation.sessionEndGrace)
        }
        derivations = DerivationEngine(configuration: configuration.derivation, maxTrackedDevices: configuration.maxTrackedDevices)
        deadLetterLimiter = configuration.deadLetters.map { DeadLetterLimiter(maxPerSecond: $0.maxPerSecond, maxKeys: configuration.maxTrackedDevices) }
    }

    /// Checks one frame and returns its outcome and the messages to publish now.
    /// - Parameter frame: the received frame.
    /// - Returns: the outcome, plus an error report (first of its window) or a presence change, if any.
    public mutating func process(_ frame: InboundFrame) -> FrameResult {
        process(frame, topic: configuration.scheme.parseInbound(frame.topic))
    }

    /// ``process(_:)`` of a frame whose topic is parsed already (the gateway classifies each
    /// topic once, ``TopicScheme/classify(_:)``).
    /// - Parameters:
    ///   - frame: the received frame.
    ///   - topic: its topic, parsed with this processor's scheme.
    public mutating func process(_ frame: InboundFrame, topic: InboundTopic) -> FrameResult {
        var result = evaluate(frame, topic: topic)
        if let traceParent = frame.traceParent { result.messages = result.messages.map { $0.carrying(traceParent) } }
        return result
    }

    /// ``process(_:topic:)`` without the trace context.
    private mutating func evaluate(_ frame: InboundFrame, topic: InboundTopic) -> FrameResult {
        let id: DeviceID
        let stream: InboundStream
        switch topic {
        case .invalid(let rejection):
            return rejectTopic(frame, rejection)
        case .device(let device, let parsedStream):
            id = device
            stream = parsedStream
        }
        // A batched frame's effect lives only in sample windows, which no snapshot holds: replayed,
        // it is applied again, refilling them (its outputs come out with the same event ids).
        if let sequence = frame.journalSequence, let applied = appliedJournalSequences[id], sequence <= applied,
            DeviceSnapshot.canChange(from: stream)
        {
            return FrameResult(outcome: .alreadyApplied(stream))
        }
        if frame.payload.count > configuration.maxPayloadBytes {
            let detail = "payload has \(frame.payload.count) bytes; the limit is \(configuration.maxPayloadBytes) bytes (pipeline.maxPayloadBytes)"
            return reject(.invalidPayload, id, stream, detail: detail, frame: frame)
        }
        guard let encoding = PayloadEncoding(contentType: frame.contentType) else {
            let message = "unsupported content type '\(TopicScheme.bounded(frame.contentType ?? ""))'"
            return rejectPayload(PayloadProblem(.unsupportedEncoding, message: message), id, stream, frame: frame)
        }
        let decoded: DecodedFrame
        switch FrameDecoder.decode(frame.payload, encoding: encoding, stream: stream) {
        case .success(let model): decoded = model
        case .failure(let problem): return rejectPayload(problem, id, stream, frame: frame)
        }
        if let problem = FrameValidator.validate(decoded, limits: configuration.validationLimits) {
            return rejectPayload(problem, id, stream, frame: frame)
        }
        var result = FrameResult(outcome: .accepted(stream), frame: decoded)
        // Sequences are tracked before the access checks, so frames refused while (say) a
        // workout is paused do not show up later as a gap.
        result.sequence = decoded.sequence.map { sequences.record($0, device: id, stream: stream) }
        var finishesSession = false
        if let decision = access?.admit(
            stream, from: id, update: AccessUpdate(decoded, retained: frame.retained), receivedAt: frame.receivedAt,
            batchTimestamps: decoded.batchTimestamps)
        {
            finishesSession = decision.finishesSession
            switch decision.verdict {
            case .denied(let code, let detail):
                noteApplied(frame, to: id)
                var rejected = reject(code, id, stream, detail: detail, frame: frame)
                rejected.sequence = result.sequence
                return rejected
            case .allowed(let maximumDepth):
                result.maximumDepth = maximumDepth
            }
            if let change = decision.availability { result.messages.append(change.message(scheme: configuration.scheme)) }
        }
        if case .status(let status, _) = decoded {
            // An offline bridge's session ended; its next one may number frames from anywhere.
            if status.state == .offline { sequences.forget(device: id) }
            result.messages += presenceMessages(status, id, receivedAt: frame.receivedAt)
        }
        let context = DerivationContext(
            device: id, receivedAt: frame.receivedAt, retained: frame.retained, maximumDepth: result.maximumDepth,
            descriptor: access?.state(of: id)?.descriptor, scheme: configuration.scheme)
        let tallied = derivations.tally
        result.messages += derivations.receive(decoded, context: context)
        // Without access checks there is no end grace: a stopped session finishes at once.
        if finishesSession || (access == nil && decoded.stopsWorkout) {
            result.messages += derivations.finishSession(of: id, context: context)
        }
        result.derived = derivations.tally.since(tallied)
        result.changesSnapshot = noteActivity(of: id, stream: stream, at: frame.receivedAt)
        noteApplied(frame, to: id)
        return result
    }

    /// Remembers the journal sequence of a frame applied to a device with state.
    private mutating func noteApplied(_ frame: InboundFrame, to id: DeviceID) {
        guard let sequence = frame.journalSequence, lastSeen[id] != nil || hasState(id) else { return }
        appliedJournalSequences[id] = sequence
    }

    /// Remembers when a device with state was last active and whether its snapshot changed.
    /// - Returns: whether the device's snapshot may differ from the last one taken because of
    ///   this frame (``FrameResult/changesSnapshot``).
    private mutating func noteActivity(of id: DeviceID, stream: InboundStream, at date: Double) -> Bool {
        guard lastSeen[id] != nil || hasState(id) else { return false }
        lastSeen[id] = date
        guard DeviceSnapshot.canChange(from: stream) else { return false }
        changed.insert(id)
        return true
    }

    private func hasState(_ id: DeviceID) -> Bool {
        presence[id] != nil || derivations.tracks(id) || (access?.tracks(id) ?? false)
    }

    /// Forgets everything kept for a device (presence, sequences, access and derivation
    /// state), as if it had never sent a frame: another gateway instance took it over (its
    /// snapshot is ``evict(_:)``'s to take). Pending error reports stay and are flushed as usual.
    public mutating func forget(_ device: DeviceID) {
        access?.forget(device)
        setPresence(nil, of: device)
        derivations.forget(device)
        sequences.forget(device: device)
        lastSeen[device] = nil
        appliedJournalSequences[device] = nil
        changed.remove(device)
    }

    /// Replaces the registry and capability table (a SIGHUP reload) without losing what was
    /// learnt from frames, and returns the availability messages of devices whose resolved
    /// capabilities or entitlements changed.
    /// - Parameters:
    ///   - policy: the new policy.
    ///   - date: when it took effect, Unix epoch seconds.
    /// - Returns: retained `gateway/{id}/availability` messages to publish.
    public mutating func replaceAccessPolicy(_ policy: AccessPolicy, date: Double) -> [OutboundMessage] {
        guard access != nil else {
            access = AccessControl(policy: policy, maxTrackedDevices: configuration.maxTrackedDevices, sessionEndGrace: configuration.derivation.sessionEndGrace)
            return []
        }
        return access?.replacePolicy(policy, date: date).map { $0.message(scheme: configuration.scheme) } ?? []
    }

    /// Closes ended error windows and lets time-based derivations fire (silence timeouts,
    /// summaries after a quiet period).
    /// - Parameter now: the current time, Unix epoch seconds.
    /// - Returns: the messages to publish: topic errors, device errors, then derived events.
    public mutating func flush(now: Double) -> [OutboundMessage] {
        let finishing = access?.takeDueSessionFinishes(now: now) ?? []
        let access = access
        let scheme = configuration.scheme
        // Derivers keep what they need from frames (e.g. the maximum depth); a tick only
        // carries the time and the latest hello.
        let context = { (device: DeviceID) in
            DerivationContext(device: device, receivedAt: now, descriptor: access?.state(of: device)?.descriptor, scheme: scheme)
        }
        var derived: [OutboundMessage] = []
        for device in finishing { derived += derivations.finishSession(of: device, context: context(device)) }
        derived += derivations.tick(now: now, context: context)
        return topicErrors.flush(now: now).map(topicErrorMessage) + deviceErrors.flush(now: now).map(deviceErrorMessage) + derived
    }

    /// The final flush at shutdown: reports what the open error windows still hold, without
    /// letting time-based derivations fire (the gateway is stopping, not the devices).
    /// - Returns: the error reports to publish.
    public mutating func finish() -> [OutboundMessage] {
        topicErrors.flush(now: .greatestFiniteMagnitude).map(topicErrorMessage)
            + deviceErrors.flush(now: .greatestFiniteMagnitude).map(deviceErrorMessage)
    }

    /// Applies a head-pose reset command for a device (see ``DerivationEngine/resetHeadphonePose(of:at:retained:)``).
    /// - Returns: whether a reference pose was reset.
    @discardableResult
    public mutating func resetHeadphonePose(of device: DeviceID, at date: Double, retained: Bool) -> Bool {
        guard derivations.resetHeadphonePose(of: device, at: date, retained: retained) else { return false }
        changed.insert(device)
        return true
    }

    /// When ``flush(now:)`` next has something to do.
    /// - Returns: a Unix epoch date, or nil when no error window is open.
    public func nextDeadline() -> Double? {
        switch (topicErrors.nextDeadline(), deviceErrors.nextDeadline()) {
        case (let topic?, let device?): min(topic, device)
        case (let topic?, nil): topic
        case (nil, let device?): device
        case (nil, nil): nil
        }
    }

    // MARK: Snapshots and eviction

    /// The number of devices with state (access, connection or derivations).
    public var residentDeviceCount: Int { lastSeen.count }

    /// Whether a device has state here.
    public func isResident(_ id: DeviceID) -> Bool { lastSeen[id] != nil }

    /// The devices with state in memory.
    public var residentDevices: [DeviceID] { Array(lastSeen.keys) }

    /// What is kept of a device across a restart or an eviction, or nil when it has no state.
    public func snapshot(of id: DeviceID) -> DeviceSnapshot? {
        guard let seen = lastSeen[id] else { return nil }
        return DeviceSnapshot(
            lastSeen: seen, access: access?.tracked(id), connection: presence[id], derivations: derivations.state(of: id),
            appliedJournalSequence: appliedJournalSequences[id], journalIdentity: configuration.journalIdentity)
    }

    /// Takes back a device's state from a snapshot, before its first frame after a restart or
    /// an eviction. Ignored for a device that already has state here.
    /// - Returns: false when a part was not restored (the device already had state, a bound was
    ///   reached, or the snapshot's derivation settings differ from the current ones).
    @discardableResult
    public mutating func restore(_ snapshot: DeviceSnapshot, of id: DeviceID) -> Bool {
        guard lastSeen[id] == nil, snapshot.format == DeviceSnapshot.currentFormat else { return false }
        var complete = true
        if let tracked = snapshot.access { complete = (access?.restore(tracked, of: id) ?? false) && complete }
        if let connection = snapshot.connection {
            if presence.count < configuration.maxTrackedDevices { setPresence(connection, of: id) } else { complete = false }
        }
        if let state = snapshot.derivations { complete = derivations.restore(state, of: id) && complete }
        if hasState(id) {
            lastSeen[id] = snapshot.lastSeen
            // Only a sequence of this very journal says which replayed frames the state contains.
            let sameJournal = snapshot.appliedJournalIdentity != nil && snapshot.appliedJournalIdentity == configuration.journalIdentity
            appliedJournalSequences[id] = sameJournal ? snapshot.appliedJournalSequence : nil
        }
        return complete
    }

    /// Removes a device's state and returns its snapshot (to store before it is dropped).
    public mutating func evict(_ id: DeviceID) -> DeviceSnapshot? {
        let taken = snapshot(of: id)
        forget(id)
        return taken
    }

    /// The devices to evict: those without an accepted frame since `cutoff`, then, while more
    /// than `maxResident` would remain, the least recently active. Oldest first, ties by id.
    public func evictionCandidates(idleSince cutoff: Double, maxResident: Int) -> [DeviceID] {
        let excess = lastSeen.count - maxResident
        guard excess > 0 || lastSeen.values.contains(where: { $0 < cutoff }) else { return [] }
        let byAge = lastSeen.sorted { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }
        let idle = byAge.prefix { $0.value < cutoff }.count
        return byAge.prefix(max(idle, excess)).map(\.key)
    }

    /// The devices whose snapshot may have changed since the last call (frames other than
    /// batched ones, timers that fired, finished sessions), sorted by id.
    public mutating func takeChangedDevices() -> [DeviceID] {
        changed.formUnion(derivations.takeChanged().filter { lastSeen[$0] != nil })
        defer { changed.removeAll(keepingCapacity: true) }
        return changed.sorted { $0.rawValue < $1.rawValue }
    }

    /// The last presence published for a device, or nil when none was seen (or not remembered).
    /// - Parameter id: the device.
    /// - Returns: the device's connection state.
    public func connectionState(of id: DeviceID) -> ConnectionState? { presence[id] }

    /// The devices with state here by their connection state (`gateway_devices`): connected and
    /// disconnected as last published on `gateway/{id}/connection`, unknown without a `status`.
    public var connectionCounts: DeviceConnectionCounts {
        DeviceConnectionCounts(
            connected: connectedDevices, disconnected: presence.count - connectedDevices, unknown: max(0, lastSeen.count - presence.count))
    }

    /// The number of errors counted but not reported yet.
    public var pendingErrorCount: Int { topicErrors.pendingCount + deviceErrors.pendingCount }

    /// Cumulative sequence statistics of a stream over all devices (see ``SequenceTracker``).
    /// - Parameter stream: the stream.
    /// - Returns: frames, missing numbers, duplicates, reorders, restarts and untracked frames so far.
    public func sequenceCounters(for stream: InboundStream) -> SequenceCounters { sequences.counters(for: stream) }

    // MARK: Status

    /// Sets (nil: forgets) a device's presence, keeping the count of connected devices.
    private mutating func setPresence(_ state: ConnectionState?, of id: DeviceID) {
        if presence[id] == .connected { connectedDevices -= 1 }
        if state == .connected { connectedDevices += 1 }
        presence[id] = state
    }

    /// Updates presence from a status and returns the `gateway/{id}/connection` message on a change.
    private mutating func presenceMessages(_ status: DeviceStatus, _ id: DeviceID, receivedAt: Double) -> [OutboundMessage] {
        let state: ConnectionState = status.state == .online ? .connected : .disconnected
        let previous = presence[id]
        guard previous != state else { return [] }
        if previous != nil || presence.count < configuration.maxTrackedDevices {
            setPresence(state, of: id)
        }
        // The contract's date is optional: without one, the arrival time stands in.
        let date = status.date ?? receivedAt
        var writer = JSONWriter(capacity: 160)
        writer.object {
            $0.field("deviceId", id.rawValue)
            $0.field("state", state.rawValue)
            $0.field("reason", state.statusValue)
            $0.field("date", date)
            $0.field("eventId", EventID.make(id.rawValue, TopicScheme.Leaf.connection.rawValue, state.rawValue, String(describing: date)))
        }
        return [OutboundMessage(.connection, of: id, in: configuration.scheme, payload: writer.bytes)]
    }

    // MARK: Rejections

    private mutating func rejectTopic(_ frame: InboundFrame, _ rejection: TopicRejection) -> FrameResult {
        // The bounded topic keeps keys small; the aggregator's maxKeys bounds how many there are.
        let key = TopicErrorKey(code: rejection.code, topic: TopicScheme.bounded(frame.topic, maxScalars: Self.maxReportedTopicScalars))
        var result = FrameResult(outcome: .rejected(rejection.code, nil))
        if let report = topicErrors.record(key, detail: rejection.detail, at: frame.receivedAt) {
            result.messages.append(topicErrorMessage(report))
        }
        // An unknown stream still names a valid device: its dead letter goes to that device.
        let device = TopicScheme.routingKey(of: frame.topic, inboundRoot: configuration.scheme.inboundRoot).flatMap { DeviceID($0) }
        let owner = rejection.code == .unknownStream ? device : nil
        addDeadLetter(to: &result, frame: frame, code: rejection.code, stream: nil, detail: rejection.detail, device: owner)
        return result
    }

    /// Rejects an undecodable or invalid payload as `invalidPayload`, keeping the problem in the result.
    private mutating func rejectPayload(_ problem: PayloadProblem, _ id: DeviceID, _ stream: InboundStream, frame: InboundFrame) -> FrameResult {
        var result = reject(.invalidPayload, id, stream, detail: problem.detail, frame: frame)
        result.problem = problem
        return result
    }

    private mutating func reject(
        _ code: GatewayErrorCode,
        _ id: DeviceID,
        _ stream: InboundStream,
        detail: String,
        frame: InboundFrame
    ) -> FrameResult {
        var result = FrameResult(outcome: .rejected(code, stream))
        if let report = deviceErrors.record(DeviceErrorKey(id: id, code: code, stream: stream), detail: detail, at: frame.receivedAt) {
            result.messages.append(deviceErrorMessage(report))
        }
        addDeadLetter(to: &result, frame: frame, code: code, stream: stream, detail: detail, device: id)
        return result
    }

    /// Appends the frame's dead letter when they are enabled and the device is under its rate.
    private mutating func addDeadLetter(
        to result: inout FrameResult, frame: InboundFrame, code: GatewayErrorCode, stream: InboundStream?, detail: String, device: DeviceID?
    ) {
        guard var limiter = deadLetterLimiter else { return }
        let admitted = limiter.admit(device?.rawValue ?? "", at: frame.receivedAt)
        deadLetterLimiter = limiter
        guard admitted else {
            result.deadLetter = .dropped
            return
        }
        result.messages.append(DeadLetter.message(for: frame, code: code, stream: stream, detail: detail, device: device, scheme: configuration.scheme))
        result.deadLetter = .published
    }

    // MARK: Messages

    private func topicErrorMessage(_ report: ErrorReport<TopicErrorKey>) -> OutboundMessage {
        let key = report.key
        let detail = report.isOverflow ? overflowDetail(report.detail) : report.detail
        return errorsMessage(code: key.code, topic: key.topic, detail: detail, report: report)
    }

    private func deviceErrorMessage(_ report: ErrorReport<DeviceErrorKey>) -> OutboundMessage {
        let key = report.key
        if report.isOverflow {
            // Counts of untracked keys mix devices: they go to the gateway-wide topic, not one device's.
            let topic = configuration.scheme.inboundTopic(key.id, key.stream)
            return errorsMessage(code: key.code, topic: topic, detail: overflowDetail(report.detail), report: report)
        }
        let code = key.code
        var writer = JSONWriter(capacity: 256)
        writer.object {
            $0.field("deviceId", key.id.rawValue)
            $0.field("code", code.rawValue)
            $0.field("cmError", code.cmError)
            $0.field("stream", key.stream.rawValue)
            $0.field("detail", report.detail)
            $0.field("count", report.count)
            $0.field("date", report.lastDate)
            $0.field("firstDate", report.firstDate)
            $0.field("eventId", Self.reportEventID(key.id.rawValue, "error", code.rawValue, key.stream.rawValue, report: report))
        }
        return OutboundMessage(.errors, of: key.id, in: configuration.scheme, payload: writer.bytes)
    }

    /// A `gateway/errors` report; `overflow` is added only to overflow reports.
    private func errorsMessage<Key>(code: GatewayErrorCode, topic: String, detail: String, report: ErrorReport<Key>) -> OutboundMessage {
        var writer = JSONWriter(capacity: 256)
        writer.object {
            $0.field("code", code.rawValue)
            $0.field("topic", topic)
            $0.field("detail", detail)
            $0.field("count", report.count)
            $0.field("date", report.lastDate)
            $0.field("firstDate", report.firstDate)
            if report.isOverflow { $0.field("overflow", true) }
            let kind = report.isOverflow ? "error-overflow" : "topic-error"
            $0.field("eventId", Self.reportEventID(kind, code.rawValue, topic, report: report))
        }
        return OutboundMessage(.errors, in: configuration.scheme, payload: writer.bytes)
    }

    private func overflowDetail(_ lastDetail: String) -> String {
        "more than \(configuration.maxErrorKeys) distinct error keys in one interval; this report counts errors of untracked keys; last: \(lastDetail)"
    }

    /// An id that depends only on what the report covers, so the same input frames give the same id.
    private static func reportEventID<Key>(_ parts: String..., report: ErrorReport<Key>) -> String {
        EventID.make(parts: parts + [String(describing: report.firstDate), String(describing: report.lastDate), String(report.count)])
    }
}

extension FrameProcessor {
    /// Aggregation key of topic-level errors; the topic is bounded in length.
    struct TopicErrorKey: Hashable, Sendable {
        var code: GatewayErrorCode
        var topic: String
    }

    /// Aggregation key of device-level errors, as the contract says: per (device, code, stream).
    struct DeviceErrorKey: Hashable, Sendable {
        var id: DeviceID
        var code: GatewayErrorCode
        var stream: InboundStream
    }
}
