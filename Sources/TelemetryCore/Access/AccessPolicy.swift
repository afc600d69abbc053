/// The operator's access configuration: the device registry and the capability table, replaced
/// together when the files are reloaded.
public struct AccessPolicy: Sendable, Equatable {
    /// Which devices may stream and what they are entitled to.
    public var registry: DeviceRegistry
    /// Which models and OS versions have which capabilities.
    public var capabilities: CapabilityTable

    /// Creates a policy.
    /// - Parameters:
    ///   - registry: the device registry.
    ///   - capabilities: the capability table.
    public init(registry: DeviceRegistry, capabilities: CapabilityTable) {
        self.registry = registry
        self.capabilities = capabilities
    }
}
