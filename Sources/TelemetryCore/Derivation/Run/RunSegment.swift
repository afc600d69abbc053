/// One active stretch of a workout, from a resume to the following pause, published on
/// `gateway/{id}/pedometer/segment`.
public struct RunSegment: Sendable, Equatable, Codable {
    /// What let the segment be published.
    public enum Completion: String, Sendable, Equatable, Codable {
        /// A pedometer update and an altimeter sample at or after its end arrived.
        case data
        /// ``RunConfiguration/finalizeTimeout`` passed first; the values use what had arrived.
        case timeout
        /// The workout ended before the data covering the segment's end arrived.
        case workoutEnd
    }

    /// 1-based number of the segment in its workout.
    public var index: Int
    /// The workout's start, Unix epoch seconds.
    public var workoutStartDate: Double
    /// The resume (or workout start) that opened the segment, Unix epoch seconds.
    public var startDate: Double
    /// The pause (or workout end) that closed it, Unix epoch seconds.
    public var endDate: Double
    /// Steps in the segment (nil without pedometer data in the workout).
    public var steps: Int?
    /// Distance in the segment, m (nil when the pedometer reports none).
    public var distance: Double?
    /// Altitude at the end minus altitude at the start, m (nil without altimeter samples inside).
    public var elevationChange: Double?
    /// Sum of the climbs, m (nil without altimeter samples inside).
    public var elevationGain: Double?
    /// Whether ``elevationGain`` reaches ``RunConfiguration/hillHeight`` (nil without it).
    public var hill: Bool?
    /// What let it be published.
    public var completion: Completion

    /// The segment's length, s.
    public var activeDuration: Double { endDate - startDate }

    /// Seconds per metre over the segment, or nil when the distance is 0 or unknown.
    public var averageActivePace: Double? { Self.pace(activeDuration, distance) }

    /// `duration / distance` when the distance is known and positive.
    static func pace(_ duration: Double, _ distance: Double?) -> Double? {
        guard let distance, distance > 0 else { return nil }
        return duration / distance
    }

    /// The event id: the device and the segment's dates (the same input gives the same id).
    /// - Parameter device: the device id.
    /// - Returns: 16 hex digits.
    public func eventID(device: DeviceID) -> String {
        EventID.make(device.rawValue, TopicScheme.Leaf.pedometerSegment.rawValue, String(describing: startDate), String(describing: endDate))
    }

    /// Writes the `gateway/{id}/pedometer/segment` payload: durations to 1 ms, distances and
    /// elevations to 1 cm, paces to 10⁻⁴ s/m; absent values are left out.
    /// - Parameters:
    ///   - writer: the writer.
    ///   - device: the device id.
    public func write(to writer: inout JSONWriter, device: DeviceID) {
        writer.object {
            $0.field("deviceId", device.rawValue)
            $0.field("eventId", eventID(device: device))
            $0.field("index", index)
            $0.field("workoutStartDate", workoutStartDate)
            $0.field("startDate", startDate)
            $0.field("endDate", endDate)
            $0.field("activeDuration", activeDuration.rounded(toPlaces: 3))
            $0.field("steps", steps)
            $0.field("distance", distance?.rounded(toPlaces: 2))
            $0.field("averageActivePace", averageActivePace?.rounded(toPlaces: 4))
            $0.field("elevationChange", elevationChange?.rounded(toPlaces: 2))
            $0.field("elevationGain", elevationGain?.rounded(toPlaces: 2))
            if let hill { $0.field("hill", hill) }
            $0.field("completion", completion.rawValue)
            $0.field("date", endDate)
        }
    }
}
