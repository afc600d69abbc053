/// What `gateway/{id}/availability` (retained) says about a device: its model, the capabilities
/// the gateway resolved for it, the entitlements the registry grants and its motion authorization.
///
/// Compare snapshots with `==` and publish only when the new one differs from the last published
/// one (``AccessControl`` does this). A snapshot exists only once the device's `hello` is known.
public struct AvailabilitySnapshot: Sendable, Equatable, Codable {
    /// The device.
    public var deviceId: DeviceID
    /// The `hello`'s model.
    public var model: String
    /// The `hello`'s platform.
    public var platform: String
    /// The `hello`'s OS version.
    public var osVersion: String
    /// The `hello`'s connected headphones, if any.
    public var headphones: String?
    /// The resolved capabilities, sorted by name.
    public var capabilities: [Capability]
    /// The granted entitlements, sorted by name (empty when the device is no longer known).
    public var entitlements: [Entitlement]
    /// The current motion authorization.
    public var authorization: AuthorizationStatus
    /// The submersion depth limit in metres (40 or 6), or nil without a submersion entitlement.
    public var maximumDepth: Double?

    /// Creates a snapshot.
    /// - Parameters:
    ///   - deviceId: the device.
    ///   - model: its model.
    ///   - platform: its platform.
    ///   - osVersion: its OS version.
    ///   - headphones: its connected headphones, if any.
    ///   - capabilities: its capabilities (sorted here).
    ///   - entitlements: its entitlements (sorted here).
    ///   - authorization: its motion authorization.
    public init(
        deviceId: DeviceID,
        model: String,
        platform: String,
        osVersion: String,
        headphones: String? = nil,
        capabilities: Set<Capability>,
        entitlements: Set<Entitlement>,
        authorization: AuthorizationStatus
    ) {
        self.deviceId = deviceId
        self.model = model
        self.platform = platform
        self.osVersion = osVersion
        self.headphones = headphones
        self.capabilities = capabilities.sorted()
        self.entitlements = entitlements.sorted()
        self.authorization = authorization
        maximumDepth = Entitlement.maximumDepth(granted: entitlements)
    }

    /// The snapshot of a device, or nil before its `hello`.
    /// - Parameters:
    ///   - device: the device.
    ///   - state: what is known about it.
    ///   - entitlements: what the registry grants it (nil when unknown: published as none).
    ///   - capabilities: the capabilities resolved from its `hello`.
    public init?(device: DeviceID, state: DeviceAccessState, entitlements: Set<Entitlement>?, capabilities: Set<Capability>) {
        guard let descriptor = state.descriptor else { return nil }
        self.init(
            deviceId: device, model: descriptor.model, platform: descriptor.platform, osVersion: descriptor.osVersion,
            headphones: descriptor.headphones, capabilities: capabilities, entitlements: entitlements ?? [],
            authorization: state.authorization ?? descriptor.authorization)
    }

    /// The JSON payload: `{"deviceId","model","platform","osVersion","headphones"?,"capabilities":[…],
    /// "entitlements":[…],"authorization","rawValue","maximumDepth"?,"date","eventId"}`; `rawValue` is the
    /// authorization's `CMAuthorizationStatus` raw value.
    ///
    /// The event id derives from every field and `date`, so reprocessing the same input gives the
    /// same id, while a later return to an earlier snapshot (denied → authorized → denied) gets a new one.
    /// - Parameter date: when the snapshot took effect, Unix epoch seconds (the triggering frame's
    ///   date, or the reload time).
    /// - Returns: UTF-8 JSON.
    public func payload(date: Double) -> [UInt8] {
        var writer = JSONWriter(capacity: 320)
        writer.object { writer in
            writer.field("deviceId", deviceId.rawValue)
            writer.field("model", model)
            writer.field("platform", platform)
            writer.field("osVersion", osVersion)
            writer.field("headphones", headphones)
            writer.field("capabilities", array: { writer in
                for capability in capabilities { writer.value(capability.rawValue) }
            })
            writer.field("entitlements", array: { writer in
                for entitlement in entitlements { writer.value(entitlement.rawValue) }
            })
            writer.field("authorization", authorization.name)
            // The contract adds Core Motion's raw value next to an enum's name (CMAuthorizationStatus).
            writer.field("rawValue", authorization.rawValue)
            writer.field("maximumDepth", maximumDepth)
            writer.field("date", date)
            writer.field("eventId", eventID(date: date))
        }
        return writer.bytes
    }

    /// The retained `gateway/{id}/availability` message.
    /// - Parameters:
    ///   - scheme: the topic layout.
    ///   - date: when the snapshot took effect, Unix epoch seconds.
    /// - Returns: a QoS 1, retained message.
    public func message(scheme: TopicScheme, date: Double) -> OutboundMessage {
        OutboundMessage(.availability, of: deviceId, in: scheme, payload: payload(date: date))
    }

    private func eventID(date: Double) -> String {
        EventID.make(parts: [
            deviceId.rawValue, TopicScheme.Leaf.availability.rawValue, model, platform, osVersion, headphones ?? "",
            capabilities.map(\.rawValue).joined(separator: ","), entitlements.map(\.rawValue).joined(separator: ","),
            authorization.name, maximumDepth.map { String(describing: $0) } ?? "", String(describing: date),
        ])
    }
}
