import Foundation
import Testing

@testable import TelemetryGateway

/// The HTTP token files (`http.auth.*TokenFile`) are read strictly, and a token opens only its
/// own route group.
@Suite("HTTP access tokens")
struct HTTPAccessTokensTests {
    private let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wg-http-tokens-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private func file(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func load(_ overrides: [(key: String, value: String)]) throws(ConfigurationError) -> GatewayConfiguration {
        try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null")] + overrides).configuration
    }

    private func issues(_ overrides: [(key: String, value: String)]) -> [String] {
        do {
            _ = try load(overrides)
            return []
        } catch {
            return error.issues.map { "\($0.key): \($0.message)" }
        }
    }

    @Test("every line but blanks and comments is a token; each group gets its own file's")
    func readsTokenFiles() throws {
        let scrape = try file("scrape", "# Prometheus\n  0123456789abcdef0123  \r\n\n# the next one, during rotation\nfedcba9876543210fedc\n")
        let api = try file("api", "api-token-0123456789\n")
        let tokens = try load([("http.auth.metricsTokenFile", scrape), ("http.auth.apiTokenFile", api)]).http.accessTokens
        #expect(tokens.admits("0123456789abcdef0123", to: .metrics))
        #expect(tokens.admits("fedcba9876543210fedc", to: .metrics))
        #expect(!tokens.admits("api-token-0123456789", to: .metrics))
        #expect(tokens.admits("api-token-0123456789", to: .api))
        #expect(!tokens.admits("0123456789abcdef0123", to: .api))
        #expect(!tokens.admits(nil, to: .api))
        // Groups without a file stay open; health is open by default.
        #expect(!tokens.isProtected(.page) && !tokens.isProtected(.health))
        #expect(tokens.admits(nil, to: .health))
    }

    @Test("a prefix, an extension or a case change of a token opens nothing")
    func exactMatchOnly() {
        let tokens = HTTPAccessTokens([.page: ["Page-Token-0123456789"]])
        for attempt in ["Page-Token-012345678", "Page-Token-01234567890", "page-token-0123456789", "", "Page-Token-0123456789 "] {
            #expect(!tokens.admits(attempt, to: .page), "\(attempt)")
        }
        #expect(tokens.admits("Page-Token-0123456789", to: .page))
    }

    @Test("an empty, short, spaced or missing token file is an error naming its key")
    func badTokenFiles() throws {
        let empty = try file("empty", "# only a comment\n\n")
        let short = try file("short", "letmein\n")
        let spaced = try file("spaced", "two words in one token\n")
        let missing = directory.appendingPathComponent("missing").path
        #expect(issues([("http.auth.metricsTokenFile", empty)]) == ["http.auth.metricsTokenFile: file '\(empty)' holds no token (one per line; # starts a comment)"])
        #expect(issues([("http.auth.apiTokenFile", short)]) == ["http.auth.apiTokenFile: file '\(short)' line 1: a token must have at least 16 characters, got 7"])
        #expect(issues([("http.auth.pageTokenFile", spaced)]) == ["http.auth.pageTokenFile: file '\(spaced)' line 1: a token must be visible ASCII without spaces"])
        #expect(issues([("http.auth.healthTokenFile", missing)]) == ["http.auth.healthTokenFile: file '\(missing)' does not exist"])
    }

    @Test("http.tls.certFile and http.tls.keyFile go together and must be PEM")
    func tlsKeys() throws {
        let pem = try file("ok.pem", "-----BEGIN CERTIFICATE-----\nMIG\n-----END CERTIFICATE-----\n")
        let text = try file("text", "not a certificate\n")
        #expect(issues([("http.tls.certFile", pem)]) == ["http.tls.certFile: http.tls.certFile and http.tls.keyFile go together; set both or neither"])
        #expect(issues([("http.tls.certFile", pem), ("http.tls.keyFile", text)]) == ["http.tls.keyFile: file '\(text)' holds no PEM block (-----BEGIN ...)"])
        #expect(issues([("http.tls.certFile", pem), ("http.tls.keyFile", pem)]).isEmpty)
    }
}
