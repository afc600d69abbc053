/// One open dive: accumulates what its summary reports, from the entry into the water until
/// ``end(at:reason:maximumDepth:)``.
///
/// Pure: the deriver feeds it the depth state machine's applied inputs in order.
public struct DiveTracker: Sendable, Codable {
    /// When the dive started, Unix epoch seconds.
    public let startDate: Double
    /// The date of the last input of the dive.
    public private(set) var lastDate: Double
    /// The current band.
    public private(set) var state: DepthState
    /// The deepest band reached.
    public private(set) var deepestState: DepthState
    /// The deepest depth measured, m.
    public private(set) var maxDepth: Double?
    /// Seconds in each band so far (up to ``lastDate``).
    public private(set) var timeInState = DiveSummary.TimeInState()
    /// The coldest temperature reading.
    public private(set) var minTemperature: WaterTemperature?
    /// The last temperature reading.
    public private(set) var lastTemperature: WaterTemperature?
    /// Measurements applied.
    public private(set) var measurements = 0
    /// Ascent-rate warnings raised.
    public private(set) var ascentWarnings = 0
    /// Stale inputs dropped during the dive.
    public private(set) var staleInputs = 0
    /// Duplicate inputs dropped during the dive.
    public private(set) var duplicateInputs = 0
    /// The safety-stop rule, fed with the dive's depths.
    public private(set) var safetyStop: SafetyStopRule

    /// Starts a dive.
    /// - Parameters:
    ///   - date: the date of the input that entered the water.
    ///   - state: the band entered.
    ///   - safetyStop: the safety-stop settings.
    public init(startDate date: Double, state: DepthState, safetyStop: SafetyStopRule.Configuration) {
        startDate = date
        lastDate = date
        self.state = state
        deepestState = state
        self.safetyStop = SafetyStopRule(configuration: safetyStop)
    }

    /// Moves the dive's clock to `date` (time so far counts for the current band) and sets the band.
    /// - Parameters:
    ///   - date: the date of an applied input; an earlier date than ``lastDate`` adds no time.
    ///   - state: the band from then on.
    public mutating func advance(to date: Double, state newState: DepthState) {
        if date > lastDate {
            timeInState[state] += date - lastDate
            lastDate = date
        }
        guard newState.isSubmergedBand else { return }
        state = newState
        if newState.rawValue > deepestState.rawValue { deepestState = newState }
    }

    /// Records an applied measurement and its depth, if it had one.
    /// - Parameters:
    ///   - depth: m, or nil.
    ///   - date: the measurement's date.
    public mutating func recordMeasurement(depth: Double?, date: Double) {
        measurements += 1
        guard let depth else { return }
        if maxDepth.map({ depth > $0 }) ?? true { maxDepth = depth }
        safetyStop.record(depth: depth, date: date)
    }

    /// Records a temperature reading.
    /// - Parameter reading: the reading.
    public mutating func recordTemperature(_ reading: WaterTemperature) {
        if minTemperature.map({ reading.temperature < $0.temperature }) ?? true { minTemperature = reading }
        lastTemperature = reading
    }

    /// Counts an ascent-rate warning.
    public mutating func recordAscentWarning() { ascentWarnings += 1 }

    /// Counts a dropped stale input.
    public mutating func recordStale() { staleInputs += 1 }

    /// Counts a dropped duplicate input.
    public mutating func recordDuplicate() { duplicateInputs += 1 }

    /// Ends the dive.
    /// - Parameters:
    ///   - date: the end: the surfacing event's date, or ``lastDate`` after a silence.
    ///   - reason: surfaced or silence.
    ///   - maximumDepth: the entitlement's maximum depth M, m.
    /// - Returns: the summary.
    public mutating func end(at date: Double, reason: DiveSummary.EndReason, maximumDepth: Double) -> DiveSummary {
        advance(to: date, state: state)
        return DiveSummary(
            startDate: startDate, endDate: max(date, lastDate), endReason: reason, maxDepth: maxDepth ?? 0, deepestState: deepestState,
            maximumDepth: maximumDepth, timeInState: timeInState, minTemperature: minTemperature, lastTemperature: lastTemperature,
            measurements: measurements, ascentWarnings: ascentWarnings, safetyStop: safetyStop.outcome,
            longestSafetyStop: safetyStop.longestStop, staleInputs: staleInputs, duplicateInputs: duplicateInputs)
    }
}
