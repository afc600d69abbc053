/// The gateway's table of which models and OS versions have which Core Motion capabilities
/// (loaded from `config/capabilities.yml`).
///
/// A device's capabilities are the union of the capabilities of every rule that applies to its
/// `hello` (model, platform, OS version). A model no rule covers has none. Headphones streamed
/// through a phone may also be named in the descriptor's `headphones` field: rules that cover
/// that name, checked against the phone's platform and OS, add ``Capability/headphoneMotion``
/// (and nothing else).
public struct CapabilityTable: Sendable, Equatable {
    /// The rules, in file order.
    public var rules: [CapabilityRule]

    /// Creates a table.
    /// - Parameter rules: the rules.
    public init(rules: [CapabilityRule]) {
        self.rules = rules
    }

    /// A table with no rules: every device has no capabilities.
    public static let empty = CapabilityTable(rules: [])

    /// The capabilities of a model on a platform and OS version.
    /// - Parameters:
    ///   - model: the model, e.g. `"Apple Watch Series 9"`.
    ///   - platform: the platform, e.g. `"watchOS"`.
    ///   - osVersion: the OS version text, e.g. `"10.1"`; an unparseable version matches no rule.
    /// - Returns: the union of the capabilities of every applying rule.
    public func capabilities(model: String, platform: String, osVersion: String) -> Set<Capability> {
        let version = OSVersion(osVersion)
        var result: Set<Capability> = []
        for rule in rules where rule.applies(model: model, platform: platform, version: version) {
            result.formUnion(rule.capabilities)
        }
        return result
    }

    /// The capabilities of the device a `hello` describes, including head tracking of connected
    /// headphones named in `headphones`.
    /// - Parameter descriptor: the device's latest `hello`.
    /// - Returns: the resolved capabilities.
    public func capabilities(for descriptor: DeviceDescriptor) -> Set<Capability> {
        var result = capabilities(model: descriptor.model, platform: descriptor.platform, osVersion: descriptor.osVersion)
        if let headphones = descriptor.headphones, headphones != descriptor.model,
            capabilities(model: headphones, platform: descriptor.platform, osVersion: descriptor.osVersion).contains(.headphoneMotion)
        {
            result.insert(.headphoneMotion)
        }
        return result
    }

    /// Whether any rule covers the model at all (whatever the platform or version).
    /// - Parameter model: a model name.
    /// - Returns: true when the table knows the model.
    public func knows(model: String) -> Bool {
        rules.contains { $0.covers(model: model) }
    }

    /// Explains why a device lacks a capability, for the `detail` of a `notAvailable` report, e.g.
    /// `Apple Watch Series 7 (watchOS 10.1) lacks batchedSensors: batched 800/200 Hz sensors
    /// (CMBatchedSensorManager) need Apple Watch Series 8 or later or any Apple Watch Ultra with watchOS 10.0 or later`.
    /// - Parameters:
    ///   - capability: the missing capability.
    ///   - descriptor: the device's latest `hello`.
    /// - Returns: one sentence naming the device, the capability and what it would need (or saying
    ///   that the device has it, when it does).
    public func explainMissing(_ capability: Capability, for descriptor: DeviceDescriptor) -> String {
        let granting = grantingRules(capability)
        var subject = descriptor.model
        var model = descriptor.model
        // Headphones streamed through a phone: explain with the headphones' model.
        if capability == .headphoneMotion, let headphones = descriptor.headphones, headphones != model,
            !granting.contains(where: { $0.covers(model: model) })
        {
            subject = "\(headphones) connected to \(model)"
            model = headphones
        }
        if capabilities(for: descriptor).contains(capability) {
            return "\(descriptor.model) (\(descriptor.platform) \(descriptor.osVersion)) has \(capability.rawValue)"
        }
        let head = "\(subject) (\(descriptor.platform) \(descriptor.osVersion)) lacks \(capability.rawValue): "
        guard !granting.isEmpty else {
            return head + "no rule of the capability table grants it"
        }
        let needs = "\(capability.summary) need " + granting.map(\.requirement).joined(separator: "; or ")
        let coveringModel = granting.filter { $0.covers(model: model) }
        if coveringModel.isEmpty {
            return head + (knows(model: model) ? needs : "model '\(model)' is not in the capability table; " + needs)
        }
        let onPlatform = coveringModel.flatMap(\.platforms).filter { $0.platform == descriptor.platform }
        if onPlatform.isEmpty {
            let platforms = CapabilityRule.joined(Array(Set(coveringModel.flatMap(\.platforms).map(\.platform))).sorted())
            return head + "on this model \(capability.summary) need \(platforms), not \(descriptor.platform)"
        }
        guard OSVersion(descriptor.osVersion) != nil else {
            return head + "osVersion '\(descriptor.osVersion)' is not a dotted version number such as 10.1"
        }
        let oldest = onPlatform.map(\.minimum).min()!
        return head + "\(capability.summary) need \(descriptor.platform) \(oldest) or later on this model"
    }

    /// The rules that grant `capability`.
    private func grantingRules(_ capability: Capability) -> [CapabilityRule] {
        rules.filter { $0.capabilities.contains(capability) }
    }
}
