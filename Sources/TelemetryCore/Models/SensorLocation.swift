/// Which physical sensor produced a device-motion sample, as Core Motion's
/// `CMDeviceMotion.SensorLocation` (NSInteger).
///
/// Headphones stream from one bud at a time and the streaming bud can change, so every
/// sample carries its own location.
public enum SensorLocation: Int, WireEnumeration, Codable {
    /// The device's own sensors (phone or watch).
    case `default` = 0
    /// The left earbud.
    case headphoneLeft = 1
    /// The right earbud.
    case headphoneRight = 2

    /// The Core Motion case name, for example `"headphoneLeft"`.
    public var name: String {
        switch self {
        case .default: "default"
        case .headphoneLeft: "headphoneLeft"
        case .headphoneRight: "headphoneRight"
        }
    }
}
