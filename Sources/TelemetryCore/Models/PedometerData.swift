/// Cumulative pedometer data since a start date (`pedometer/data`), as Core Motion's
/// `CMPedometerData`. Optional values are `nil` where the platform or moment has none.
public struct PedometerData: Sendable, Equatable, Hashable {
    /// Start of the counted interval, Unix epoch seconds.
    public var startDate: Double
    /// End of the counted interval (the latest update for live data), Unix epoch seconds.
    public var endDate: Double
    /// Steps taken in the interval.
    public var numberOfSteps: Int
    /// Distance travelled, m.
    public var distance: Double?
    /// Floors climbed up, floors.
    public var floorsAscended: Int?
    /// Floors gone down, floors.
    public var floorsDescended: Int?
    /// Current pace, s/m (live updates only).
    public var currentPace: Double?
    /// Current cadence, steps/s (live updates only).
    public var currentCadence: Double?
    /// Average pace while moving, s/m.
    public var averageActivePace: Double?

    /// Creates pedometer data.
    /// - Parameters:
    ///   - startDate: Unix epoch seconds.
    ///   - endDate: Unix epoch seconds.
    ///   - numberOfSteps: steps.
    ///   - distance: m.
    ///   - floorsAscended: floors.
    ///   - floorsDescended: floors.
    ///   - currentPace: s/m.
    ///   - currentCadence: steps/s.
    ///   - averageActivePace: s/m.
    public init(
        startDate: Double,
        endDate: Double,
        numberOfSteps: Int,
        distance: Double? = nil,
        floorsAscended: Int? = nil,
        floorsDescended: Int? = nil,
        currentPace: Double? = nil,
        currentCadence: Double? = nil,
        averageActivePace: Double? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.numberOfSteps = numberOfSteps
        self.distance = distance
        self.floorsAscended = floorsAscended
        self.floorsDescended = floorsDescended
        self.currentPace = currentPace
        self.currentCadence = currentCadence
        self.averageActivePace = averageActivePace
    }
}
