/// Whether the app may use motion data, as Core Motion's `CMAuthorizationStatus` (NSInteger).
public enum AuthorizationStatus: Int, WireEnumeration, Codable {
    /// The user has not been asked yet.
    case notDetermined = 0
    /// Blocked by a system-wide restriction.
    case restricted = 1
    /// The user refused.
    case denied = 2
    /// The user granted access.
    case authorized = 3

    /// The Core Motion case name, for example `"authorized"`.
    public var name: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .authorized: "authorized"
        }
    }
}
