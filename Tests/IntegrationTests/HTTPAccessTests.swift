import BrokerTestSupport
import Foundation
import Testing

@testable import TelemetryGateway

/// The HTTP listeners with TLS (the development PKI's server certificate) and a token per route
/// group, asked by curl as a scraper, a script and a browser would: a request without its
/// group's token gets 401 and nothing else, a token opens its own group only, health stays
/// open, and plain HTTP gets no answer from an HTTPS listener.
@Suite(.serialized) struct HTTPAccessTests {
    private static let metricsToken = "scrape-0123456789abcdef"
    private static let apiToken = "api-0123456789abcdef01"
    private static let pageToken = "page-0123456789abcdef0"

    /// One answer as curl saw it; status 0 when no HTTP answer came.
    private struct Answer {
        var status: Int
        var headers: [String]
        var body: String
        func header(_ name: String) -> String? {
            headers.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
    }

    private static func curl(_ url: String, ca: String, _ extra: [String] = []) async throws -> Answer {
        let marker = "\n--status:"
        let (_, output) = try await runChildProcess(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-i", "--max-time", "5", "--cacert", ca, "-w", "\(marker)%{http_code}"] + extra + [url])
        guard let split = output.range(of: marker, options: .backwards) else { return Answer(status: 0, headers: [], body: output) }
        let status = Int(output[split.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let response = output[..<split.lowerBound]
        guard let end = response.range(of: "\r\n\r\n") else { return Answer(status: status, headers: [], body: String(response)) }
        return Answer(
            status: status, headers: response[..<end.lowerBound].components(separatedBy: "\r\n"), body: String(response[end.upperBound...]))
    }

    @Test("TLS and tokens per route group: 401 and nothing else without the group's token; health open; /openapi.yaml served")
    func tokensAndTLS() async throws {
        let pki = try await SecureBroker.identities()
        let ca = pki.appendingPathComponent("ca.crt").path
        let broker = try await TestBroker.started()
        var configuration = try GatewayHarness.configuration(broker: broker)
        let port = try TestBroker.freePort()
        let metricsPort = try TestBroker.freePort()
        configuration.http.listen = HTTPListenAddress(host: "127.0.0.1", port: port)
        configuration.http.metricsListen = HTTPListenAddress(host: "127.0.0.1", port: metricsPort)
        // The broker's development certificate names localhost and 127.0.0.1.
        configuration.http.tlsCertificateFile = pki.appendingPathComponent("broker.crt").path
        configuration.http.tlsKeyFile = pki.appendingPathComponent("broker.key").path
        configuration.http.accessTokens = HTTPAccessTokens([.metrics: [Self.metricsToken], .api: [Self.apiToken], .page: [Self.pageToken, Self.apiToken]])
        let run = try await GatewayRun.start(broker, configuration: configuration)
        let base = "https://localhost:\(port)"

        // Health is open: the probe needs no token. Polled until the listener is up.
        var health = Answer(status: 0, headers: [], body: "")
        for _ in 0..<100 where health.status != 200 {
            health = try await Self.curl("\(base)/healthz", ca: ca)
            if health.status != 200 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(health.status == 200, "healthz: \(health.status) \(health.body)")

        let protected = ["/metrics", "/api/fleet", "/api/events", "/api/devices/watch-1/events", "/openapi.yaml", "/", "/fleet.js", "/fleet.css"]
        for path in protected {
            for credentials in [[], ["-H", "Authorization: Bearer wrong-token-0123456789"], ["-H", "Authorization: Basic !!notbase64"]] {
                let answer = try await Self.curl(base + path, ca: ca, credentials)
                #expect(answer.status == 401, "\(path) \(credentials): \(answer.status)")
                #expect(answer.body.isEmpty, "\(path): a refusal carries no data, got \(answer.body.prefix(200))")
                let challenge = answer.header("WWW-Authenticate") ?? ""
                #expect(challenge.contains("Bearer") && challenge.contains("Basic"), "\(path): \(challenge)")
            }
        }

        // A token opens its own group only.
        #expect(try await Self.curl("\(base)/metrics", ca: ca, ["-H", "Authorization: Bearer \(Self.apiToken)"]).status == 401)
        #expect(try await Self.curl("\(base)/api/fleet", ca: ca, ["-H", "Authorization: Bearer \(Self.metricsToken)"]).status == 401)
        let metrics = try await Self.curl("\(base)/metrics", ca: ca, ["-H", "Authorization: Bearer \(Self.metricsToken)"])
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("# TYPE gateway_mqtt_connected gauge"))
        let fleet = try await Self.curl("\(base)/api/fleet", ca: ca, ["-H", "Authorization: Bearer \(Self.apiToken)"])
        #expect(fleet.status == 200 && fleet.header("Content-Type") == "application/json", "\(fleet.status) \(fleet.headers)")
        // A browser answers the Basic challenge with any user name and the token as password.
        let page = try await Self.curl("\(base)/", ca: ca, ["-u", "viewer:\(Self.pageToken)"])
        #expect(page.status == 200 && page.body.contains("<html"), "\(page.status)")
        // The page's token list holds the API's token too, so one browser login reads both.
        #expect(try await Self.curl("\(base)/fleet.js", ca: ca, ["-u", "viewer:\(Self.apiToken)"]).status == 200)

        // The served document is contract/openapi.yaml, byte for byte.
        let document = try await Self.curl("\(base)/openapi.yaml", ca: ca, ["-H", "Authorization: Bearer \(Self.apiToken)"])
        let contract = try String(contentsOf: TestBroker.repositoryRoot.appendingPathComponent("contract/openapi.yaml"), encoding: .utf8)
        #expect(document.status == 200 && document.body == contract)
        #expect(document.header("Content-Type")?.hasPrefix("application/yaml") == true)

        // The metrics-only listener asks for the metrics token too.
        let metricsBase = "https://localhost:\(metricsPort)"
        #expect(try await Self.curl("\(metricsBase)/metrics", ca: ca).status == 401)
        #expect(try await Self.curl("\(metricsBase)/metrics", ca: ca, ["-H", "Authorization: Bearer \(Self.metricsToken)"]).status == 200)

        // Plain HTTP on an HTTPS listener gets no HTTP answer at all.
        #expect(try await Self.curl("http://127.0.0.1:\(port)/healthz", ca: ca).status == 0)

        // Refusals are counted by group: 3 per protected path above, plus the cross-group tries.
        let counted = PrometheusText(text: try await Self.curl("\(base)/metrics", ca: ca, ["-H", "Authorization: Bearer \(Self.metricsToken)"]).body)
        #expect(counted.sum("gateway_http_requests_refused_total", labels: ["group": "metrics"]) == 3 + 1 + 1)
        #expect(counted.sum("gateway_http_requests_refused_total", labels: ["group": "api"]) == 4 * 3 + 1)
        #expect(counted.sum("gateway_http_requests_refused_total", labels: ["group": "page"]) == 3 * 3)
        #expect(counted.sum("gateway_http_requests_refused_total", labels: ["group": "health"]) == 0)
        try await run.stop()
        broker.kill()
    }
}
