import Foundation
import Testing

@testable import TelemetryGateway

/// The password and TLS files are read strictly: a bad file is a configuration error naming
/// its key, never a silent connection without the credential.
@Suite("Credential files are read strictly")
struct CredentialFileTests {
    private let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wg-credentials-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private func issues(_ overrides: [(key: String, value: String)]) -> [String] {
        do {
            _ = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null")] + overrides)
            return []
        } catch {
            return error.issues.map { "\($0.key): \($0.message)" }
        }
    }

    @Test("the first line is the password, without CR LF")
    func goodPasswordFile() throws {
        let path = try file("pw", Array("s3cret\r\nnext\n".utf8))
        let loaded = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null"), ("mqtt.passwordFile", path)])
        #expect(loaded.configuration.mqtt.password == "s3cret")
    }

    @Test("a missing, unreadable, non-UTF-8 or empty password file names mqtt.passwordFile")
    func badPasswordFiles() throws {
        let notUTF8 = try file("latin1", [0x73, 0xE9, 0x63, 0x72, 0x65, 0x74, 0x0A])  // "sécret" in Latin-1
        let empty = try file("empty", Array("\nsecond line\n".utf8))
        let missing = directory.appendingPathComponent("missing").path
        #expect(issues([("mqtt.passwordFile", notUTF8)]) == ["mqtt.passwordFile: file '\(notUTF8)' is not UTF-8 text"])
        #expect(issues([("mqtt.passwordFile", empty)]) == ["mqtt.passwordFile: file '\(empty)' has an empty first line; it must hold the password"])
        #expect(issues([("mqtt.passwordFile", missing)]) == ["mqtt.passwordFile: file '\(missing)' does not exist"])
        #expect(issues([("mqtt.passwordFile", directory.path)]) == ["mqtt.passwordFile: '\(directory.path)' is a directory, not a file"])
        // A password given directly does not hide a broken file.
        #expect(issues([("mqtt.password", "x"), ("mqtt.passwordFile", notUTF8)]).count == 1)
    }

    @Test("an unreadable password file is an error (permissions)", .enabled(if: getuid() != 0, "root reads any file"))
    func unreadablePasswordFile() throws {
        let path = try file("locked", Array("s3cret\n".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
        #expect(issues([("mqtt.passwordFile", path)]) == ["mqtt.passwordFile: file '\(path)' is not readable (permissions?)"])
    }

    @Test("TLS files must be UTF-8 PEM; each problem names its key")
    func tlsFiles() throws {
        let pem = try file("ok.pem", Array("-----BEGIN PRIVATE KEY-----\nMIG\n-----END PRIVATE KEY-----\n".utf8))
        let der = try file("key.der", [0x30, 0x82, 0x01, 0xFF, 0x02, 0x01])
        let text = try file("cert.txt", Array("not a certificate\n".utf8))
        #expect(issues([("mqtt.tls.caFile", pem), ("mqtt.tls.certFile", pem), ("mqtt.tls.keyFile", pem)]).isEmpty)
        #expect(
            issues([("mqtt.tls.caFile", pem), ("mqtt.tls.certFile", text), ("mqtt.tls.keyFile", der)]) == [
                "mqtt.tls.certFile: file '\(text)' holds no PEM block (-----BEGIN ...)",
                "mqtt.tls.keyFile: file '\(der)' is not UTF-8 text",
            ])
    }
}
