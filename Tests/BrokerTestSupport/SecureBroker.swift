import Foundation
import MQTTTransport

/// The shipped secure broker: config/mosquitto/secure.conf with its acl and gateway.acl, on two
/// free loopback ports, with development identities made by scripts/make-dev-pki.sh (once per
/// test process, in a temporary directory).
public final class SecureBroker: Sendable {
    /// The broker; its `port` is the main listener (devices, apps, monitors).
    public let broker: TestBroker
    /// The gateway listener.
    public let gatewayPort: Int

    /// The identities of this test process (a CA, gateway CA, broker, gateway and clients),
    /// made once, without blocking a cooperative thread.
    public static func identities() async throws -> URL {
        try await identityMaker.directory()
    }

    private static let identityMaker = IdentityMaker()

    /// The directory of identities this instance's broker uses.
    public let pki: URL

    /// Renders secure.conf (ACL files straight from the repository) and starts mosquitto.
    public init() async throws {
        let pki = try await Self.identities()
        self.pki = pki
        let port = try TestBroker.freePort()
        var gatewayPort = try TestBroker.freePort()
        while gatewayPort == port { gatewayPort = try TestBroker.freePort() }
        let configDirectory = TestBroker.repositoryRoot.appendingPathComponent("config/mosquitto")
        let template = try String(contentsOf: configDirectory.appendingPathComponent("secure.conf"), encoding: .utf8)
        let configuration =
            template
            .replacingOccurrences(of: "@GATEWAY_PORT@", with: String(gatewayPort))
            .replacingOccurrences(of: "@PORT@", with: String(port))
            .replacingOccurrences(of: "@CONFIG_DIR@", with: configDirectory.path)
            .replacingOccurrences(of: "@PKI_DIR@", with: pki.path)
            // As TestBroker: run as the test's user, so it reads the files in the repository.
            + "\nuser root\n"
        broker = try await TestBroker.started(completeConfiguration: configuration, port: port)
        self.gatewayPort = gatewayPort
        try TestBroker.waitUntilAccepting(port: gatewayPort, timeout: 10) { [broker] in broker.log }
    }

    /// A client of identity `name` (a device id, app-1, app-2, monitor) on the main listener,
    /// asking for `clientID` (the broker replaces it by `name`).
    public func client(_ name: String, clientID: String? = nil) throws -> MQTTClientConfiguration {
        var configuration = MQTTClientConfiguration(
            broker: BrokerURL(host: "127.0.0.1", port: broker.port, usesTLS: true), clientID: clientID ?? name,
            tls: .init(
                caFile: pki.appendingPathComponent("ca.crt").path,
                certificateFile: pki.appendingPathComponent("clients/\(name).crt").path,
                keyFile: pki.appendingPathComponent("clients/\(name).key").path))
        configuration.reconnect = .init(initialDelay: 0.05, maximumDelay: 0.5)
        return configuration
    }

    /// The gateway's broker URL and TLS files: (url, caFile, certFile, keyFile).
    public var gatewayIdentity: (url: String, caFile: String, certificateFile: String, keyFile: String) {
        return (
            "mqtts://127.0.0.1:\(gatewayPort)", pki.appendingPathComponent("ca.crt").path, pki.appendingPathComponent("gateway.crt").path,
            pki.appendingPathComponent("gateway.key").path
        )
    }
}

/// Runs scripts/make-dev-pki.sh once per test process; every caller awaits the same run.
private actor IdentityMaker {
    private var made: Task<URL, any Error>?

    func directory() async throws -> URL {
        if let made { return try await made.value }
        let task = Task<URL, any Error> {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wg-dev-pki-\(UUID().uuidString)")
            let script = TestBroker.repositoryRoot.appendingPathComponent("scripts/make-dev-pki.sh")
            let (status, output) = try await runChildProcess(URL(fileURLWithPath: "/bin/bash"), [script.path, directory.path])
            guard status == 0 else { throw TestFailure("make-dev-pki.sh failed: \(output)") }
            return directory
        }
        made = task
        return try await task.value
    }
}
