/// What the store remembers of a device across restarts.
public struct RecorderDeviceState: Sendable, Equatable {
    /// The newest stored sample's wall-clock date, if any sample is stored.
    public var newestSampleDate: Double?
    /// The first minute whose tremor result is not published yet, if one was persisted.
    public var nextTremorMinute: Double?

    /// Creates a state.
    public init(newestSampleDate: Double?, nextTremorMinute: Double?) {
        self.newestSampleDate = newestSampleDate
        self.nextTremorMinute = nextTremorMinute
    }
}
