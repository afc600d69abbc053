/// One row of the capability table: these models, on these platforms from these OS versions,
/// have these capabilities.
public struct CapabilityRule: Sendable, Equatable {
    /// A platform and the oldest OS version of it the rule applies to.
    public struct PlatformMinimum: Sendable, Hashable {
        /// The `hello`'s `platform`, e.g. `watchOS` (case-sensitive).
        public var platform: String
        /// The oldest `osVersion` that has the capabilities.
        public var minimum: OSVersion

        /// Creates a platform minimum.
        /// - Parameters:
        ///   - platform: the platform name.
        ///   - minimum: the oldest OS version.
        public init(platform: String, minimum: OSVersion) {
            self.platform = platform
            self.minimum = minimum
        }
    }

    /// What the rule grants.
    public var capabilities: Set<Capability>
    /// The models it covers; any one matching is enough.
    public var models: [ModelPattern]
    /// The platforms it covers with their minimum OS versions; any one matching is enough.
    public var platforms: [PlatformMinimum]
    /// Why the rule holds (the documentation it rests on), for operators; not used in checks.
    public var why: String

    /// Creates a rule.
    /// - Parameters:
    ///   - capabilities: what it grants.
    ///   - models: the models it covers.
    ///   - platforms: the platforms and minimum OS versions it covers.
    ///   - why: the documentation it rests on.
    public init(capabilities: Set<Capability>, models: [ModelPattern], platforms: [PlatformMinimum], why: String = "") {
        self.capabilities = capabilities
        self.models = models
        self.platforms = platforms
        self.why = why
    }

    /// Whether one of the rule's model patterns covers `model`.
    /// - Parameter model: a model name.
    /// - Returns: true on a match.
    public func covers(model: String) -> Bool {
        models.contains { $0.matches(model) }
    }

    /// Whether the rule applies to a device.
    /// - Parameters:
    ///   - model: the device's model.
    ///   - platform: its platform.
    ///   - version: its parsed OS version, or nil when unparseable (then no rule applies).
    /// - Returns: true when model, platform and minimum version all match.
    public func applies(model: String, platform: String, version: OSVersion?) -> Bool {
        guard let version, covers(model: model) else { return false }
        return platforms.contains { $0.platform == platform && version >= $0.minimum }
    }

    /// The rule's condition in words: `Apple Watch Series 8 or later or any Apple Watch Ultra with watchOS 10.0 or later`.
    public var requirement: String {
        let models = Self.joined(models.map(\.readable))
        let platforms = Self.joined(platforms.map { "\($0.platform) \($0.minimum) or later" })
        return "\(models) with \(platforms)"
    }

    /// `a`, `a or b`, `a, b or c`.
    static func joined(_ parts: [String]) -> String {
        switch parts.count {
        case 0: "nothing"
        case 1: parts[0]
        default: parts.dropLast().joined(separator: ", ") + " or " + parts[parts.count - 1]
        }
    }
}
