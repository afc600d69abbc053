/// What a device says about itself in `hello`: identity, software and authorization.
///
/// The gateway derives capabilities from `model`, `platform` and `osVersion` with its own
/// table and grants entitlements from its registry; neither is taken from the device.
public struct DeviceDescriptor: Sendable, Equatable, Hashable, Codable {
    /// Marketing model name, for example `"Apple Watch Ultra 2"`.
    public var model: String
    /// Operating system, for example `"watchOS"` or `"iOS"`.
    public var platform: String
    /// Operating system version, for example `"10.1"`.
    public var osVersion: String
    /// Bundle identifier of the publishing app, for example `"com.example.dive"`.
    public var app: String
    /// The app's motion authorization when it said hello.
    public var authorization: AuthorizationStatus
    /// Watch only: the wrist it is worn on.
    public var wristLocation: WristLocation?
    /// Watch only: the side of the Digital Crown.
    public var crownOrientation: CrownOrientation?
    /// Model name of connected motion-capable headphones, for example
    /// `"AirPods Pro (2nd generation)"`.
    public var headphones: String?

    /// Creates a descriptor.
    /// - Parameters:
    ///   - model: marketing model name.
    ///   - platform: operating system name.
    ///   - osVersion: operating system version.
    ///   - app: bundle identifier.
    ///   - authorization: motion authorization.
    ///   - wristLocation: watch wrist, if a watch.
    ///   - crownOrientation: watch crown side, if a watch.
    ///   - headphones: connected headphones' model, if any.
    public init(
        model: String,
        platform: String,
        osVersion: String,
        app: String,
        authorization: AuthorizationStatus,
        wristLocation: WristLocation? = nil,
        crownOrientation: CrownOrientation? = nil,
        headphones: String? = nil
    ) {
        self.model = model
        self.platform = platform
        self.osVersion = osVersion
        self.app = app
        self.authorization = authorization
        self.wristLocation = wristLocation
        self.crownOrientation = crownOrientation
        self.headphones = headphones
    }
}
