/// A workout's totals over its published segments, published on `gateway/{id}/pedometer/workout`
/// when the workout ends, after its last segment.
///
/// Steps, distance, elevation and the pace cover active time only: the time between segments
/// (stoplights, breaks) is ``pausedDuration`` and counts toward nothing else.
public struct RunWorkoutSummary: Sendable, Equatable, Codable {
    /// The HealthKit activity type of the workout.
    public var activityType: String
    /// The workout's `running` frame, Unix epoch seconds.
    public var startDate: Double
    /// The workout's `ended` frame, Unix epoch seconds.
    public var endDate: Double
    /// Sum of the segments' durations, s.
    public var activeDuration = 0.0
    /// Published segments.
    public var segments = 0
    /// Sum of the segments' steps (nil when no segment had any).
    public var steps: Int?
    /// Sum of the segments' distances, m (nil when no segment had one).
    public var distance: Double?
    /// Sum of the segments' climbs, m (nil when no segment had altitude).
    public var elevationGain: Double?
    /// Sum of the segments' elevation changes, m (nil when no segment had altitude).
    public var elevationChange: Double?
    /// Events of the workout ignored as late (see ``RunCounters/lateEvents``).
    public var lateEvents = 0
    /// Events of the workout ignored as redeliveries (see ``RunCounters/duplicateEvents``).
    public var duplicateEvents = 0
    /// Resumes while active and pauses while paused in the workout, ignored.
    public var repeatedEvents = 0

    /// Creates the summary of a workout that starts.
    /// - Parameters:
    ///   - activityType: the HealthKit activity type.
    ///   - startDate: Unix epoch seconds.
    public init(activityType: String, startDate: Double) {
        self.activityType = activityType
        self.startDate = startDate
        endDate = startDate
    }

    /// The workout's time outside segments, s.
    public var pausedDuration: Double { max(0, endDate - startDate - activeDuration) }

    /// Seconds per metre over active time only, or nil when the distance is 0 or unknown.
    public var averageActivePace: Double? { RunSegment.pace(activeDuration, distance) }

    /// Adds a published segment.
    /// - Parameter segment: the segment.
    public mutating func add(_ segment: RunSegment) {
        segments += 1
        activeDuration += segment.activeDuration
        steps = Self.sum(steps, segment.steps)
        distance = Self.sum(distance, segment.distance)
        elevationGain = Self.sum(elevationGain, segment.elevationGain)
        elevationChange = Self.sum(elevationChange, segment.elevationChange)
    }

    /// The sum of the known values, nil when neither is known.
    private static func sum<Value: AdditiveArithmetic>(_ a: Value?, _ b: Value?) -> Value? {
        guard a != nil || b != nil else { return nil }
        return (a ?? .zero) + (b ?? .zero)
    }

    /// The event id: the device and the workout's dates.
    /// - Parameter device: the device id.
    /// - Returns: 16 hex digits.
    public func eventID(device: DeviceID) -> String {
        EventID.make(device.rawValue, TopicScheme.Leaf.pedometerWorkout.rawValue, String(describing: startDate), String(describing: endDate))
    }

    /// Writes the `gateway/{id}/pedometer/workout` payload (rounded as ``RunSegment``'s).
    /// - Parameters:
    ///   - writer: the writer.
    ///   - device: the device id.
    public func write(to writer: inout JSONWriter, device: DeviceID) {
        writer.object {
            $0.field("deviceId", device.rawValue)
            $0.field("eventId", eventID(device: device))
            $0.field("activityType", activityType)
            $0.field("startDate", startDate)
            $0.field("endDate", endDate)
            $0.field("activeDuration", activeDuration.rounded(toPlaces: 3))
            $0.field("pausedDuration", pausedDuration.rounded(toPlaces: 3))
            $0.field("segments", segments)
            $0.field("steps", steps)
            $0.field("distance", distance?.rounded(toPlaces: 2))
            $0.field("averageActivePace", averageActivePace?.rounded(toPlaces: 4))
            $0.field("elevationGain", elevationGain?.rounded(toPlaces: 2))
            $0.field("elevationChange", elevationChange?.rounded(toPlaces: 2))
            $0.field("lateEvents", lateEvents)
            $0.field("duplicateEvents", duplicateEvents)
            $0.field("repeatedEvents", repeatedEvents)
            $0.field("date", endDate)
        }
    }
}
