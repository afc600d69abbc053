/// A pedometer pause or resume, as Core Motion's `CMPedometerEventType` (NSInteger).
public enum PedometerEventType: Int, WireEnumeration, Codable {
    /// The user stopped moving.
    case pause = 0
    /// The user started moving again.
    case resume = 1

    /// The Core Motion case name, `"pause"` or `"resume"`.
    public var name: String {
        switch self {
        case .pause: "pause"
        case .resume: "resume"
        }
    }
}
