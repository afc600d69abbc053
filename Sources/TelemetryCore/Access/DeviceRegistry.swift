/// The operator's list of devices that may stream and the entitlements each is granted
/// (loaded from `config/devices.yml`).
///
/// Closed (the default): only listed devices are known; frames of any other id fail with
/// `unknownDevice`. Open: every id is known; unlisted devices get ``defaultEntitlements``. A
/// listed device gets exactly its own list, in either mode (the defaults are not added to it).
public struct DeviceRegistry: Sendable, Equatable {
    /// Whether unlisted devices are accepted (with ``defaultEntitlements``).
    public var isOpen: Bool
    /// What unlisted devices are granted while the registry is open.
    public var defaultEntitlements: Set<Entitlement>
    /// The listed devices and their entitlements.
    public var devices: [DeviceID: Set<Entitlement>]

    /// Creates a registry.
    /// - Parameters:
    ///   - isOpen: whether unlisted devices are accepted; defaults to false (closed).
    ///   - defaultEntitlements: what unlisted devices get while open; defaults to none.
    ///   - devices: the listed devices and their entitlements.
    public init(isOpen: Bool = false, defaultEntitlements: Set<Entitlement> = [], devices: [DeviceID: Set<Entitlement>] = [:]) {
        self.isOpen = isOpen
        self.defaultEntitlements = defaultEntitlements
        self.devices = devices
    }

    /// A closed registry with no devices: every device is unknown.
    public static let closed = DeviceRegistry()

    /// An open registry granting every entitlement to every device (development without a
    /// registry file; submersion limits then resolve to the full 40 m).
    public static let unrestricted = DeviceRegistry(isOpen: true, defaultEntitlements: Set(Entitlement.allCases))

    /// The entitlements of a device.
    /// - Parameter id: the device.
    /// - Returns: its own list when listed; ``defaultEntitlements`` when unlisted and the registry is
    ///   open; nil when unlisted and closed (the device is unknown).
    public func entitlements(for id: DeviceID) -> Set<Entitlement>? {
        if let listed = devices[id] { return listed }
        return isOpen ? defaultEntitlements : nil
    }

    /// Whether frames of the device pass the registry check.
    /// - Parameter id: the device.
    /// - Returns: true when listed, or when the registry is open.
    public func isKnown(_ id: DeviceID) -> Bool {
        isOpen || devices[id] != nil
    }
}
