import ArgumentParser
import Foundation
import TelemetryGateway

/// Options shared by `run` and `check-config`.
struct ConfigurationOptions: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file (default: config/gateway.yml when it exists).")
    var config: String?

    @Option(name: .long, help: "Broker URL, mqtt://HOST:PORT or mqtts://HOST:PORT (overrides mqtt.broker).")
    var broker: String?

    @Option(name: .long, help: "Device registry file (overrides registry.file).")
    var registry: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical (overrides logging.level).")
    var logLevel: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Override any key, e.g. --set pipeline.workers=4 (repeatable).", valueName: "key=value"))
    var settings: [String] = []

    /// The file to read: the explicit one, or the default if present.
    var configurationFile: String? {
        if let config { return config }
        return FileManager.default.fileExists(atPath: "config/gateway.yml") ? "config/gateway.yml" : nil
    }

    func overrides() throws -> [(key: String, value: String)] {
        var overrides: [(key: String, value: String)] = []
        if let broker { overrides.append(("mqtt.broker", broker)) }
        if let registry { overrides.append(("registry.file", registry)) }
        if let logLevel { overrides.append(("logging.level", logLevel)) }
        do {
            return overrides + (try ConfigurationLoader.overrides(parsingSettings: settings))
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Loads and validates, printing every problem and exiting with EX_CONFIG (78) on failure.
    func load() throws -> LoadedConfiguration {
        if let config, !FileManager.default.fileExists(atPath: config) {
            printError("configuration file '\(config)' does not exist")
            throw ExitCode(78)
        }
        do {
            return try ConfigurationLoader.load(file: configurationFile, overrides: try overrides())
        } catch let error as ConfigurationError {
            printError(error.description)
            throw ExitCode(78)
        }
    }
}

extension ConfigurationOptions {
    /// Loads the device registry and capability table the configuration names, printing every
    /// problem (file:line and key) and exiting with EX_CONFIG (78) on failure.
    func loadAccessPolicy(_ configuration: GatewayConfiguration) throws -> LoadedAccessPolicy {
        do {
            return try AccessPolicyLoader.load(configuration.accessPolicyFiles)
        } catch {
            printError(error.description)
            throw ExitCode(78)
        }
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
