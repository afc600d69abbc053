/// Derives a device's water submersion events from its `submersion/*` frames: depth states,
/// dive summaries, water temperature, ascent-rate warnings and safety-stop hints.
///
/// | topic | retained | QoS | when |
/// |---|---|---|---|
/// | `gateway/{id}/submersion/depth-state` | yes | 1 | the depth state changes (``DepthStateMachine``) |
/// | `gateway/{id}/submersion/dive` | no | 1 | a dive ends: surfacing, the surface timeout, or silence (``DiveSummary``) |
/// | `gateway/{id}/submersion/temperature` | no | 1 | each temperature reading while submerged |
/// | `gateway/{id}/submersion/ascent-warning` | no | 1 | a too-fast ascent (``AscentRateMonitor``) |
/// | `gateway/{id}/submersion/safety-stop` | no | 1 | a dive that needed a safety stop surfaced without one (``SafetyStopRule``) |
///
/// Every payload carries `deviceId`, an `eventId` derived only from the input (reprocessing gives
/// the same id) and the input's `date`. Frames dated before what was processed, and redeliveries,
/// are dropped and counted (``counters``) without touching the state. Payload examples and the
/// rules: `docs/submersion.md`.
///
/// Pure: no clock (``tick(now:context:)`` brings the time for the silence rule), no I/O.
public struct SubmersionDeriver: Sendable, Codable {
    /// The settings.
    public let configuration: SubmersionConfiguration
    /// The depth state machine.
    public private(set) var machine: DepthStateMachine
    /// The dive under way, if any (exactly while the state is a submerged band).
    public private(set) var dive: DiveTracker?
    /// Dropped and ignored inputs, cumulative.
    public private(set) var counters = SubmersionCounters()
    private var ascent: AscentRateMonitor
    /// Whether a reading of the current dive had an uncertainty below the bound.
    private(set) var temperatureConverged = false
    private var lastTemperatureDate: Double?
    /// The depth of the last applied measurement of the dive, m.
    private(set) var lastDepth: Double?
    /// The gateway time the last submersion frame arrived, for the silence rule.
    private var lastReceivedAt: Double?
    /// The maximum depth of the last frame (ticks carry none).
    private var maximumDepth: Double?
    /// The watch's own `submersionState` of the last in-order measurement, published next to
    /// the derived state as `deviceState`.
    public private(set) var deviceState: DepthState?
    /// Since when (measurement date) the open dive's measurements say the surface; nil while
    /// they say otherwise.
    private var surfaceSince: SurfaceArrival?

    /// When a surface reading arrived: its own date and the gateway's arrival time.
    private struct SurfaceArrival: Sendable, Codable {
        var date: Double
        var receivedAt: Double
    }

    /// Creates the state of a device seen for the first time.
    /// - Parameter configuration: the settings.
    public init(configuration: SubmersionConfiguration = SubmersionConfiguration()) {
        self.configuration = configuration
        machine = DepthStateMachine(configuration: configuration.depthStateMachine)
        ascent = AscentRateMonitor(configuration: configuration.ascentRate)
    }

    /// Feeds one accepted frame; frames of other streams are ignored.
    /// - Parameters:
    ///   - frame: the decoded frame.
    ///   - context: the device, the arrival time and the entitlement's maximum depth.
    /// - Returns: the events to publish, in order.
    public mutating func receive(_ frame: DecodedFrame, context: DerivationContext) -> [OutboundMessage] {
        switch frame {
        case .submersionEvent(let event, _):
            guard let limit = admit(context) else { return [] }
            return apply(machine.receive(event), date: event.date, measured: false, limit: limit, context: context)
        case .submersionMeasurement(let measurement, _):
            guard let limit = admit(context) else { return [] }
            let action = machine.receive(measurement, maximumDepth: limit)
            switch action {
            case .stale, .duplicate: break
            case .applied, .ignored: deviceState = measurement.submersionState
            }
            var messages = apply(action, date: measurement.date, measured: true, limit: limit, context: context)
            switch action {
            case .stale, .duplicate: break
            case .applied, .ignored: messages += surface(measurement, receivedAt: context.receivedAt, limit: limit, context: context)
            }
            return messages
        case .submersionTemperature(let reading, _):
            guard admit(context) != nil else { return [] }
            return temperature(reading, context: context)
        default:
            return []
        }
    }

    /// Ends an open dive when no submersion frame arrived for ``SubmersionConfiguration/diveEndSilence``.
    /// - Parameters:
    ///   - now: the gateway's time, Unix epoch seconds.
    ///   - context: the device's context.
    /// - Returns: `depth-state` `unknown` and the dive summary, or nothing.
    public mutating func tick(now: Double, context: DerivationContext) -> [OutboundMessage] {
        // Measurements slow down or stop at the surface: when the last one said the surface and
        // nothing arrived since for the timeout, the gateway's clock completes it. (Counting from
        // the last arrival, not the first surface reading, keeps a fast replay of older data —
        // device time running ahead of the gateway's — from closing dives early.)
        if dive != nil, let since = surfaceSince, let lastReceivedAt, now - lastReceivedAt >= configuration.surfaceTimeout, let limit = maximumDepth,
            let transition = machine.surfaced(at: machine.lastInputDate ?? since.date)
        {
            return change(transition, limit: limit, context: context)
        }
        guard dive != nil, let lastReceivedAt, now - lastReceivedAt >= configuration.diveEndSilence, let limit = maximumDepth,
            let transition = machine.silence()
        else { return [] }
        return change(transition, limit: limit, context: context)
    }

    /// Follows the surface rule for an in-order measurement: a dive whose measurements say the
    /// surface for ``SubmersionConfiguration/surfaceTimeout`` ends although no `notSubmerged`
    /// event came.
    private mutating func surface(_ measurement: SubmersionMeasurement, receivedAt: Double, limit: Double, context: DerivationContext) -> [OutboundMessage] {
        guard dive != nil else {
            surfaceSince = nil
            return []
        }
        let depth =
            measurement.depth
            ?? measurement.pressure.map { WaterDepth.depth(pressure: $0, surfacePressure: measurement.surfacePressure, density: configuration.waterDensity) }
        let atSurface = depth.map { $0 < configuration.surfaceDepth } ?? (measurement.submersionState == .notSubmerged)
        guard atSurface else {
            surfaceSince = nil
            return []
        }
        let since = surfaceSince ?? SurfaceArrival(date: measurement.date, receivedAt: receivedAt)
        surfaceSince = since
        guard measurement.date - since.date >= configuration.surfaceTimeout, let transition = machine.surfaced(at: measurement.date) else { return [] }
        return change(transition, limit: limit, context: context)
    }

    // MARK: Inputs

    /// Notes the arrival and returns the maximum depth, or nil (counted) when the device has none.
    private mutating func admit(_ context: DerivationContext) -> Double? {
        guard let limit = context.maximumDepth else {
            counters.withoutMaximumDepth += 1
            return nil
        }
        maximumDepth = limit
        lastReceivedAt = context.receivedAt
        return limit
    }

    private mutating func apply(
        _ action: DepthStateMachine.Action, date: Double, measured: Bool, limit: Double, context: DerivationContext
    ) -> [OutboundMessage] {
        switch action {
        case .stale:
            counters.stale += 1
            dive?.recordStale()
            return []
        case .duplicate:
            counters.duplicate += 1
            dive?.recordDuplicate()
            return []
        case .ignored:
            counters.ignored += 1
            return []
        case .applied(let transition, let depth):
            var messages: [OutboundMessage] = []
            if let transition {
                messages = change(transition, limit: limit, context: context)
            } else {
                dive?.advance(to: date, state: machine.state)
            }
            guard measured, dive != nil else { return messages }
            dive?.recordMeasurement(depth: depth, date: date)
            guard let depth else { return messages }
            lastDepth = depth
            if let warning = ascent.record(depth: depth, date: date) {
                dive?.recordAscentWarning()
                messages.append(ascentWarningMessage(warning, context: context))
            }
            return messages
        }
    }

    /// Publishes a state change and opens or closes the dive.
    private mutating func change(_ transition: DepthTransition, limit: Double, context: DerivationContext) -> [OutboundMessage] {
        var messages = [depthStateMessage(transition, limit: limit, context: context)]
        if transition.startsDive {
            dive = DiveTracker(startDate: transition.date, state: transition.state, safetyStop: configuration.safetyStop)
            surfaceSince = nil
            ascent.reset()
            temperatureConverged = false
            lastDepth = nil
        } else if transition.endsDive, var open = dive {
            let reason: DiveSummary.EndReason =
                switch transition.cause {
                case .silence: .silence
                case .surfaceTimeout: .surfaceTimeout
                case .event, .measurement: .surfaced
                }
            let summary = open.end(at: transition.date, reason: reason, maximumDepth: limit)
            dive = nil
            surfaceSince = nil
            ascent.reset()
            lastDepth = nil
            messages.append(diveMessage(summary, context: context))
            if reason != .silence, summary.safetyStop == .missed {
                messages.append(safetyStopMessage(summary, context: context))
            }
        } else {
            dive?.advance(to: transition.date, state: transition.state)
        }
        return messages
    }

    private mutating func temperature(_ reading: WaterTemperature, context: DerivationContext) -> [OutboundMessage] {
        if let last = lastTemperatureDate {
            if reading.date < last {
                counters.stale += 1
                dive?.recordStale()
                return []
            }
            if reading.date == last {
                counters.duplicate += 1
                dive?.recordDuplicate()
                return []
            }
        }
        if let lastEvent = machine.lastEventDate, reading.date < lastEvent {
            counters.stale += 1
            dive?.recordStale()
            return []
        }
        lastTemperatureDate = reading.date
        guard machine.state.isSubmergedBand, let startDate = dive?.startDate, reading.date >= startDate else {
            counters.ignored += 1
            return []
        }
        if reading.temperatureUncertainty < configuration.temperatureConvergedBelow { temperatureConverged = true }
        dive?.recordTemperature(reading)
        return [temperatureMessage(reading, context: context)]
    }
}
