import Foundation
import WearableGatewayTesting

/// A throw-away certificate authority with a server certificate for 127.0.0.1/localhost and a
/// client certificate, made with the `openssl` command line tool.
public struct TestCertificates: Sendable {
    public let directory: URL
    public var caCertificate: String { directory.appendingPathComponent("ca.crt").path }
    public var serverCertificate: String { directory.appendingPathComponent("server.crt").path }
    public var serverKey: String { directory.appendingPathComponent("server.key").path }
    public var clientCertificate: String { directory.appendingPathComponent("client.crt").path }
    public var clientKey: String { directory.appendingPathComponent("client.key").path }

    /// Creates the files in a new temporary directory.
    public init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wg-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ext = directory.appendingPathComponent("san.ext")
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(to: ext, atomically: true, encoding: .utf8)
        try await openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=wg-test-ca", "-keyout", "ca.key", "-out", "ca.crt"])
        for name in ["server", "client"] {
            try await openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(name == "server" ? "localhost" : "wg-client")", "-keyout", "\(name).key", "-out", "\(name).csr"])
            var sign = ["x509", "-req", "-in", "\(name).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-out", "\(name).crt"]
            if name == "server" { sign += ["-extfile", ext.path] }
            try await openssl(sign)
        }
    }

    private func openssl(_ arguments: [String]) async throws {
        let (status, output) = try await runChildProcess(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, in: directory)
        guard status == 0 else {
            throw TestFailure("openssl \(arguments.joined(separator: " ")) failed: \(output)")
        }
    }
}
