/// The depth band of a submersion measurement, as Core Motion's
/// `CMWaterSubmersionMeasurement.DepthState` (ObjC `CMWaterSubmersionDepthState`, NSInteger).
///
/// Raw values step by 100. The bands relative to the entitlement's maximum depth M are the
/// wire contract's rule: shallow below 1 m, deep from 1 m to 0.9·M, approaching up to M, past
/// up to 1.1·M, sensor error beyond.
public enum DepthState: Int, WireEnumeration, Codable {
    /// The state is unknown.
    case unknown = 0
    /// Out of the water.
    case notSubmerged = 100
    /// Submerged, less than 1 m deep.
    case submergedShallow = 200
    /// Submerged, 1 m deep or more.
    case submergedDeep = 300
    /// Nearing the entitlement's maximum depth.
    case approachingMaxDepth = 400
    /// Beyond the maximum depth (6 m shallow entitlement, 40 m full).
    case pastMaxDepth = 500
    /// Beyond about the maximum depth + 10 %; depth and pressure are not reported.
    case sensorDepthError = 600

    /// The Core Motion case name, for example `"submergedDeep"`.
    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .notSubmerged: "notSubmerged"
        case .submergedShallow: "submergedShallow"
        case .submergedDeep: "submergedDeep"
        case .approachingMaxDepth: "approachingMaxDepth"
        case .pastMaxDepth: "pastMaxDepth"
        case .sensorDepthError: "sensorDepthError"
        }
    }
}
