/// A pedometer pause or resume (`pedometer/event`), as Core Motion's `CMPedometerEvent`.
public struct PedometerEvent: Sendable, Equatable, Hashable {
    /// When it happened, Unix epoch seconds.
    public var date: Double
    /// Pause or resume.
    public var type: PedometerEventType

    /// Creates a pedometer event.
    /// - Parameters:
    ///   - date: Unix epoch seconds.
    ///   - type: pause or resume.
    public init(date: Double, type: PedometerEventType) {
        self.date = date
        self.type = type
    }
}
