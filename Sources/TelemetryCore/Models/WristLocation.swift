/// The wrist the watch is worn on, as WatchKit's `WKInterfaceDeviceWristLocation` (NSInteger).
public enum WristLocation: Int, WireEnumeration, Codable {
    /// Left wrist.
    case left = 0
    /// Right wrist.
    case right = 1

    /// The WatchKit case name, `"left"` or `"right"`.
    public var name: String {
        switch self {
        case .left: "left"
        case .right: "right"
        }
    }
}
