import Logging
import TelemetryCore

/// The two operator files the access checks read.
public struct AccessPolicyFiles: Sendable, Equatable {
    /// The device registry (`registry.file`, `--registry`), e.g. `config/devices.yml`.
    public var registry: String?
    /// The capability table, e.g. `config/capabilities.yml`.
    public var capabilities: String

    /// Names the files.
    /// - Parameters:
    ///   - registry: the device registry file.
    ///   - capabilities: the capability table file; defaults to `config/capabilities.yml`.
    public init(registry: String?, capabilities: String = "config/capabilities.yml") {
        self.registry = registry
        self.capabilities = capabilities
    }
}

/// An access policy that passed validation, with the remarks made while loading.
public struct LoadedAccessPolicy: Sendable, Equatable {
    /// The registry and capability table to enforce.
    public var policy: AccessPolicy
    /// Non-fatal remarks worth logging.
    public var warnings: [String]
}

/// What a reload (SIGHUP) did.
extension LoadedAccessPolicy {
    /// One line for logs and `check-config`: registry mode, device count and rule count.
    public var summary: String {
        let registry = policy.registry
        return "\(registry.isOpen ? "open" : "closed") registry with \(registry.devices.count) devices, capability table with \(policy.capabilities.rules.count) rules"
    }
}

public enum AccessPolicyReload: Sendable {
    /// Both files are valid and differ from the policy in force: hand `loaded.policy` to every
    /// shard (``AccessControl/replacePolicy(_:date:)``) and publish the changes they return.
    case replaced(LoadedAccessPolicy)
    /// Both files are valid and say the same as the policy in force; nothing to do.
    case unchanged(warnings: [String])
    /// At least one file has a problem: the policy in force stays, nothing is replaced.
    case rejected(ConfigurationError)

    /// Logs the outcome: `replaced`/`unchanged` at info (warnings at warning), `rejected` at
    /// error with every problem.
    /// - Parameters:
    ///   - logger: the gateway's logger.
    ///   - files: the files that were read.
    public func log(to logger: Logger, files: AccessPolicyFiles) {
        let metadata: Logger.Metadata = ["registry.file": "\(files.registry ?? "none")", "capabilities.file": "\(files.capabilities)"]
        switch self {
        case .replaced(let loaded):
            for warning in loaded.warnings { logger.warning("\(warning)", metadata: metadata) }
            let registry = loaded.policy.registry
            logger.info(
                "reloaded the device registry (\(registry.devices.count) devices, \(registry.isOpen ? "open" : "closed")) and capability table (\(loaded.policy.capabilities.rules.count) rules)",
                metadata: metadata)
        case .unchanged(let warnings):
            for warning in warnings { logger.warning("\(warning)", metadata: metadata) }
            logger.info("reload: the device registry and capability table are unchanged", metadata: metadata)
        case .rejected(let error):
            logger.error("reload rejected, keeping the previous device registry and capability table: \(error)", metadata: metadata)
        }
    }
}

/// Loads the registry and the capability table together, at start and on reload.
public enum AccessPolicyLoader {
    /// Loads both files; problems of both are reported together.
    /// - Parameter files: the files.
    /// - Returns: the policy and the warnings of both files.
    /// - Throws: ``ConfigurationError`` listing every problem of both files.
    public static func load(_ files: AccessPolicyFiles) throws(ConfigurationError) -> LoadedAccessPolicy {
        var issues: [ConfigurationIssue] = []
        var registry: LoadedRegistry?
        var table: LoadedCapabilityTable?
        if let file = files.registry {
            do { registry = try DeviceRegistryLoader.load(file: file) } catch { issues += error.issues }
        } else {
            registry = LoadedRegistry(
                registry: .unrestricted,
                warnings: ["no device registry (registry.file is null): every device is accepted with every entitlement; use this for development only"])
        }
        do { table = try CapabilityTableLoader.load(file: files.capabilities) } catch { issues += error.issues }
        guard let registry, let table, issues.isEmpty else { throw ConfigurationError(issues: issues) }
        return LoadedAccessPolicy(
            policy: AccessPolicy(registry: registry.registry, capabilities: table.table), warnings: registry.warnings + table.warnings)
    }

    /// Re-reads both files for a reload. A problem in either keeps `current` in force: the
    /// gateway goes on with the old policy and logs why (``AccessPolicyReload/log(to:files:)``).
    /// - Parameters:
    ///   - files: the files.
    ///   - current: the policy in force.
    /// - Returns: whether to replace the policy.
    public static func reload(_ files: AccessPolicyFiles, current: AccessPolicy) -> AccessPolicyReload {
        do {
            let loaded = try load(files)
            return loaded.policy == current ? .unchanged(warnings: loaded.warnings) : .replaced(loaded)
        } catch {
            return .rejected(error)
        }
    }
}
