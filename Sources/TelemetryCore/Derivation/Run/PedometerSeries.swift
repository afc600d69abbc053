/// A device's live `pedometer/data` updates joined into one cumulative series of steps and
/// distance over time, read at any date by linear interpolation between updates.
///
/// Each update is cumulative since its `startDate` up to its `endDate`. Updates with the same
/// `startDate` form one series. An update with another `startDate` starts a new series (the app
/// restarted its updates, or re-queried from an earlier date): it replaces the joined series
/// from its `startDate` on and continues from the joined value there, so readings stay
/// monotone and a restart neither loses nor double-counts what was counted before it. Time
/// between the old series' last update and the new start counts nothing (no data).
struct PedometerSeries: Sendable, Codable {
    /// One point of the joined series.
    struct Point: Sendable, Equatable, Codable {
        /// Unix epoch seconds.
        var date: Double
        /// Steps since the joined series began.
        var steps: Double
        /// m since the joined series began; nil once an update lacked it.
        var distance: Double?
    }

    /// What happened to an update.
    enum Outcome: Sendable, Equatable, Codable {
        /// Appended to the current series.
        case applied
        /// Started a new series.
        case restarted
        /// Not newer than the last update (a redelivery or out of order): ignored.
        case stale
    }

    private var points: BoundedBuffer<Point>
    /// The `startDate` of the current series and the joined value at it.
    private var series: Series?

    /// A series' `startDate` and the joined value at it.
    private struct Series: Sendable, Codable {
        var startDate: Double
        var base: Point
    }

    /// Creates an empty series.
    /// - Parameter capacity: the most points kept.
    init(capacity: Int) {
        points = BoundedBuffer(capacity: capacity)
    }

    /// Points dropped because the series was full, cumulative.
    var dropped: Int { points.dropped }

    /// The date of the newest point.
    var lastDate: Double? { points.last?.date }

    /// Adds an update.
    /// - Parameter data: the update.
    /// - Returns: what happened to it.
    mutating func receive(_ data: PedometerData) -> Outcome {
        if let last = points.last, data.endDate <= last.date { return .stale }
        var outcome = Outcome.applied
        if series?.startDate != data.startDate {
            outcome = series == nil ? .applied : .restarted
            let base = value(at: data.startDate) ?? Point(date: data.startDate, steps: 0, distance: 0)
            // The new series replaces whatever the joined series said after its start.
            points.removeLast(points.count - points.partitioningIndex { $0.date > data.startDate })
            let anchor = Point(date: data.startDate, steps: base.steps, distance: base.distance)
            if points.last.map({ $0.date < anchor.date }) ?? true { points.append(anchor) }
            series = Series(startDate: data.startDate, base: anchor)
        }
        guard let base = series?.base else { return outcome }
        let distance = data.distance.flatMap { distance in base.distance.map { $0 + distance } }
        points.append(Point(date: data.endDate, steps: base.steps + Double(data.numberOfSteps), distance: distance))
        return outcome
    }

    /// The joined value at a date: interpolated linearly between the points around it, the
    /// first or last point's value outside them.
    /// - Parameter date: Unix epoch seconds.
    /// - Returns: the value, or nil when the series is empty.
    func value(at date: Double) -> Point? {
        guard let first = points.first, let last = points.last else { return nil }
        if date <= first.date { return Point(date: date, steps: first.steps, distance: first.distance) }
        if date >= last.date { return Point(date: date, steps: last.steps, distance: last.distance) }
        let after = points.partitioningIndex { $0.date > date }
        let (a, b) = (points[after - 1], points[after])
        let fraction = (date - a.date) / (b.date - a.date)
        let distance = a.distance.flatMap { da in b.distance.map { da + ($0 - da) * fraction } }
        return Point(date: date, steps: a.steps + (b.steps - a.steps) * fraction, distance: distance)
    }

    /// Drops the points no longer needed for readings at or after `date` (keeps the last point
    /// at or before it, which interpolation at later dates may still use).
    /// - Parameter date: Unix epoch seconds.
    mutating func forget(before date: Double) {
        let after = points.partitioningIndex { $0.date > date }
        points.removeFirst(after - 1)
    }
}
