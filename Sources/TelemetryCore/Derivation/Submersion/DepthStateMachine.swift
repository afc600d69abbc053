/// A device's depth state from its submersion events and measurements: the seven Core Motion
/// states (``DepthState``) with the wire contract's bands and hysteresis (``DepthBands``).
///
/// Pure and clock-free: an input goes in, an ``Action`` comes out. One instance per device.
///
/// Rules (also in `docs/submersion.md`):
/// - **Events drive entry and exit.** `submerged` enters the water as
///   ``DepthState/submergedShallow`` (just under the surface, depth not known yet);
///   `notSubmerged` leaves it as ``DepthState/notSubmerged``; `unknown` is ignored.
/// - **Measurements move between the submerged bands.** The depth is the measurement's
///   `depth`, else (pressure − surfacePressure) / (ρ·g) from its `pressure`
///   (``WaterDepth/depth(pressure:surfacePressure:density:)``). With a depth, the band follows
///   ``DepthBands/state(forDepth:from:hysteresis:)``. Without depth or pressure, the
///   measurement's own `submersionState` is adopted when it is a submerged band (Core Motion
///   omits both in ``DepthState/sensorDepthError``).
/// - **A measurement's own state is used only when consistent with the events:** a measurement
///   saying `notSubmerged` while the events say submerged (or a submerged band while they say
///   not submerged) is ignored. Before any event — or after a silence made the state unknown —
///   the measurement's state is adopted, so a gateway restarted mid-dive picks the dive up.
/// - **Out of order and duplicates:** an event dated before the last accepted event is stale, one
///   with the same date a duplicate; a measurement dated before the last accepted measurement or
///   before the last accepted event is stale, one with the same date as the last measurement a
///   duplicate. Both are dropped without touching the state (the first delivery wins).
/// - **Silence** (``silence()``): the owner's timer says no frame arrived for too long; a
///   submerged state becomes ``DepthState/unknown``.
public struct DepthStateMachine: Sendable, Codable {
    /// What the machine did with an input.
    public enum Action: Sendable, Equatable, Codable {
        /// The input was applied. `transition` is set when the state changed; `depth` is the
        /// measurement's depth (given or from pressure) when the input carried one and the
        /// machine used it.
        case applied(transition: DepthTransition?, depth: Double?)
        /// Dated before what was already processed: dropped.
        case stale
        /// Dated exactly as the last input of its stream (a redelivery): dropped.
        case duplicate
        /// In order but carrying nothing usable for the state.
        case ignored(IgnoreReason)
    }

    /// Why an in-order input did not affect the state.
    public enum IgnoreReason: String, Sendable, Equatable, Codable {
        /// An event or measurement whose state is `unknown` (and, for a measurement, with no depth
        /// to use).
        case unknownState
        /// A measurement whose own state contradicts the events (says not submerged while the
        /// events say submerged, or the reverse).
        case contradictsEvents
    }

    /// The settings.
    public let configuration: Configuration
    /// The current state; ``DepthState/unknown`` until the first event or measurement.
    public private(set) var state: DepthState = .unknown
    /// The date of the last accepted event, Unix epoch seconds.
    public private(set) var lastEventDate: Double?
    /// The date of the last accepted measurement, Unix epoch seconds.
    public private(set) var lastMeasurementDate: Double?

    /// Creates a machine in ``DepthState/unknown``.
    /// - Parameter configuration: hysteresis and water density.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The date of the last accepted input of either stream.
    public var lastInputDate: Double? {
        switch (lastEventDate, lastMeasurementDate) {
        case (let event?, let measurement?): max(event, measurement)
        case (let event?, nil): event
        case (nil, let measurement?): measurement
        case (nil, nil): nil
        }
    }

    /// Applies a submersion event.
    /// - Parameter event: `submerged`, `notSubmerged` or `unknown`.
    /// - Returns: what was done; `.applied` with a transition when the state changed.
    public mutating func receive(_ event: SubmersionEvent) -> Action {
        if let last = lastEventDate {
            if event.date < last { return .stale }
            if event.date == last { return .duplicate }
        }
        lastEventDate = event.date
        let next: DepthState
        switch event.state {
        case .unknown:
            return .ignored(.unknownState)
        case .submerged:
            next = state.isSubmergedBand ? state : .submergedShallow
        case .notSubmerged:
            next = .notSubmerged
        }
        return .applied(transition: move(to: next, date: event.date, depth: nil, cause: .event), depth: nil)
    }

    /// Applies a submersion measurement.
    /// - Parameters:
    ///   - measurement: depth and/or pressure, surface pressure and the device's own state.
    ///   - maximumDepth: the device's entitlement maximum depth M, m.
    /// - Returns: what was done; `.applied` with the depth used and a transition when the state
    ///   changed.
    public mutating func receive(_ measurement: SubmersionMeasurement, maximumDepth: Double) -> Action {
        if let last = lastMeasurementDate {
            if measurement.date < last { return .stale }
            if measurement.date == last { return .duplicate }
        }
        if let lastEvent = lastEventDate, measurement.date < lastEvent { return .stale }
        lastMeasurementDate = measurement.date
        let reported = measurement.submersionState
        let depth =
            measurement.depth
            ?? measurement.pressure.map {
                WaterDepth.depth(pressure: $0, surfacePressure: measurement.surfacePressure, density: configuration.waterDensity)
            }
        let bands = DepthBands(maximumDepth: maximumDepth)

        if state.isSubmergedBand {
            if reported == .notSubmerged { return .ignored(.contradictsEvents) }
            if let depth {
                let next = bands.state(forDepth: depth, from: state, hysteresis: configuration.hysteresis)
                return .applied(transition: move(to: next, date: measurement.date, depth: depth, cause: .measurement), depth: depth)
            }
            guard reported.isSubmergedBand else { return .ignored(.unknownState) }
            return .applied(transition: move(to: reported, date: measurement.date, depth: nil, cause: .measurement), depth: nil)
        }

        switch (state, reported) {
        case (.unknown, .notSubmerged):
            return .applied(transition: move(to: .notSubmerged, date: measurement.date, depth: nil, cause: .measurement), depth: nil)
        case (.unknown, _) where reported.isSubmergedBand:
            // No event says otherwise: the device's own state enters the water.
            let next = depth.map { bands.state(forDepth: $0) } ?? reported
            return .applied(transition: move(to: next, date: measurement.date, depth: depth, cause: .measurement), depth: depth)
        case (.notSubmerged, .notSubmerged):
            return .applied(transition: nil, depth: nil)
        case (.notSubmerged, _) where reported.isSubmergedBand:
            return .ignored(.contradictsEvents)
        default:
            return .ignored(.unknownState)
        }
    }

    /// Ends a submerged state after a silence: the state becomes ``DepthState/unknown``.
    /// - Returns: the transition (dated at the last input), or nil when the state was not a
    ///   submerged band.
    public mutating func silence() -> DepthTransition? {
        guard state.isSubmergedBand else { return nil }
        return move(to: .unknown, date: lastInputDate ?? 0, depth: nil, cause: .silence)
    }

    /// Leaves the water without a `notSubmerged` event: measurements said the surface for the
    /// configured time (the event was lost).
    /// - Parameter date: the date of the input that completed the timeout.
    /// - Returns: the transition to ``DepthState/notSubmerged``, or nil when not in a submerged band.
    public mutating func surfaced(at date: Double) -> DepthTransition? {
        guard state.isSubmergedBand else { return nil }
        return move(to: .notSubmerged, date: date, depth: nil, cause: .surfaceTimeout)
    }

    private mutating func move(to next: DepthState, date: Double, depth: Double?, cause: DepthTransition.Cause) -> DepthTransition? {
        guard next != state else { return nil }
        let transition = DepthTransition(previous: state, state: next, date: date, depth: depth, cause: cause)
        state = next
        return transition
    }
}
