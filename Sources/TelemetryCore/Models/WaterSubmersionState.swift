/// Whether the watch is under water, as Core Motion's `CMWaterSubmersionEvent.State`
/// (ObjC `CMWaterSubmersionState`, NSInteger).
public enum WaterSubmersionState: Int, WireEnumeration {
    /// The state is unknown.
    case unknown = 0
    /// Out of the water.
    case notSubmerged = 1
    /// Under water.
    case submerged = 2

    /// The Core Motion case name, for example `"submerged"`.
    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .notSubmerged: "notSubmerged"
        case .submerged: "submerged"
        }
    }
}
