/// The side of the watch the Digital Crown is on, as seen by the wearer, as WatchKit's
/// `WKInterfaceDeviceCrownOrientation` (NSInteger).
public enum CrownOrientation: Int, WireEnumeration, Codable {
    /// Crown on the left.
    case left = 0
    /// Crown on the right.
    case right = 1

    /// The WatchKit case name, `"left"` or `"right"`.
    public var name: String {
        switch self {
        case .left: "left"
        case .right: "right"
        }
    }
}
