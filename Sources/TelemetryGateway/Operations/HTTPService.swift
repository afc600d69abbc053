import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL
import RecorderStore
import TelemetryCore
import ServiceLifecycle

/// The gateway's HTTP server (Hummingbird), one more service of the runtime:
///
/// | route | answer |
/// |---|---|
/// | `GET /metrics` | Prometheus text, `text/plain; version=0.0.4` |
/// | `GET /healthz` | 200 while the loops run, else 503; JSON body with the reasons |
/// | `GET /readyz` | 200 while both broker connections are up and queues below their limits, else 503 |
/// | `GET /` | the fleet page (HTML, JS and CSS compiled into the binary, no CDN) |
/// | `GET /api/fleet` | the fleet as JSON (``FleetView/snapshot()``), streamed in pieces |
/// | `GET /api/events` | live fleet updates as server-sent events |
/// | `GET /api/devices/{id}/events` | a page of the device's event history (``EventHistoryRequest``), JSON; 404 while the history is off |
/// | `GET /openapi.yaml` | the OpenAPI 3.1 document of these routes (contract/openapi.yaml, compiled in) |
///
/// With ``Routes/metricsOnly`` (`http.metricsListen`) only `/metrics` is served; everything
/// else is 404. Each route belongs to an ``HTTPRouteGroup`` that ``HTTPAccessCheck`` may close
/// to requests without a token; with ``TLSFiles`` both listeners speak HTTPS only. At graceful
/// shutdown the event streams end, so the server's own drain is not held open.
public struct HTTPService: Service {
    /// What a listener serves.
    public enum Routes: Sendable {
        /// Every route (`http.listen`).
        case all
        /// `/metrics` alone (`http.metricsListen`).
        case metricsOnly
    }

    /// The PEM files of an HTTPS listener (`http.tls.certFile`, `http.tls.keyFile`).
    public struct TLSFiles: Sendable {
        /// The certificate chain, leaf first.
        public var certificateChain: String
        /// The leaf's private key.
        public var privateKey: String

        /// The files.
        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    private let address: HTTPListenAddress
    private let endpoints: HTTPEndpoints
    private let routes: Routes
    private let tls: TLSFiles?
    private let logger: Logger

    /// Creates the service; nothing listens until ``run()``.
    public init(address: HTTPListenAddress, endpoints: HTTPEndpoints, routes: Routes = .all, tls: TLSFiles? = nil, logger: Logger) {
        self.address = address
        self.endpoints = endpoints
        self.routes = routes
        self.tls = tls
        self.logger = logger
    }

    public func run() async throws {
        let server: HTTPServerBuilder
        if let tls {
            // Read here, at start: a file replaced later takes effect at the next start.
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificateChain).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.privateKey, format: .pem)
            server = try .tls(.http1(), tlsConfiguration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
        } else {
            server = .http1()
        }
        let protected = HTTPRouteGroup.allCases.filter { endpoints.access.tokens.isProtected($0) }.map(\.rawValue)
        let application = Application(
            router: Self.router(endpoints, routes: routes),
            server: server,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "wearable-gateway"),
            onServerRunning: { [logger, address, routes, tls] _ in
                logger.info(
                    "HTTP server listening on \(tls == nil ? "http" : "https")://\(address)/ (\(routes == .all ? "metrics, healthz, readyz, fleet page, api" : "metrics only"); token required for: \(protected.isEmpty ? "none" : protected.joined(separator: ", ")))")
            },
            logger: logger)
        let fleet = routes == .all ? endpoints.fleet : nil
        try await withGracefulShutdownHandler {
            try await application.run()
        } onGracefulShutdown: {
            fleet?.close()
        }
    }

    static func router(_ endpoints: HTTPEndpoints, routes: Routes = .all) -> Router<BasicRequestContext> {
        let router = Router()
        func group(_ group: HTTPRouteGroup) -> RouterGroup<BasicRequestContext> {
            router.group().add(middleware: HTTPAccessCheck(group: group, access: endpoints.access))
        }
        group(.metrics).get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: endpoints.metrics())))
        }
        guard routes == .all else { return router }
        let health = group(.health)
        health.get("healthz") { _, _ in report(endpoints.liveness()) }
        health.get("readyz") { _, _ in report(endpoints.readiness()) }
        let page = group(.page)
        page.get("/") { _, _ in asset(FleetPage.html, type: "text/html; charset=utf-8") }
        page.get("fleet.js") { _, _ in asset(FleetPage.script, type: "text/javascript; charset=utf-8") }
        page.get("fleet.css") { _, _ in asset(FleetPage.style, type: "text/css; charset=utf-8") }
        let api = group(.api)
        api.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml)))
        }
        api.get("api/fleet") { _, _ in
            // Taken now, under the view's lock in O(1); encoded piece by piece while the body
            // is written, so neither the lock nor a pool thread is held for the whole answer.
            let snapshot = endpoints.fleet.snapshot()
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    try await snapshot.write { try await writer.write(ByteBuffer(bytes: $0)) }
                    try await writer.finish(nil)
                })
        }
        api.get("api/events") { _, _ in
            let updates = endpoints.fleet.updates()
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    // A comment line first, so the browser sees the stream open at once.
                    try await writer.write(ByteBuffer(string: ": fleet updates\n\n"))
                    for await update in updates {
                        switch update {
                        case .event(let json):
                            var buffer = ByteBuffer(string: "data: ")
                            buffer.writeBytes(json)
                            buffer.writeString("\n\n")
                            try await writer.write(buffer)
                        case .superseded:
                            // A named event the page answers by closing its EventSource: an
                            // automatic reconnect would only end the next-oldest client.
                            try await writer.write(ByteBuffer(string: "event: superseded\ndata: {\"reason\":\"too many live clients (http.maxLiveClients)\"}\n\n"))
                        }
                    }
                    try await writer.finish(nil)
                })
        }
        api.get("api/devices/:id/events") { request, context in
            await history(request, device: context.parameters.get("id") ?? "", store: endpoints.history, clock: endpoints.clock)
        }
        return router
    }

    /// A page of a device's event history, or why not (400, 404, 503), as JSON.
    private static func history(_ request: Request, device: String, store: (any EventHistoryStoring)?, clock: any GatewayClock) async -> Response {
        guard let store else { return problem(.notFound, "the event history is off (history.enabled, docs/history.md)") }
        let query = request.uri.queryParameters
        switch EventHistoryRequest.parse(device: device, parameter: { query.get($0) }) {
        case .failure(let error):
            return problem(.badRequest, error.message)
        case .success(let read):
            do {
                let rows = try await withStoreDeadline(HTTPEndpoints.historyDeadline, clock: clock) {
                    try await store.events(of: read.device, family: read.family, from: read.from, to: read.to, after: read.after, limit: read.limit)
                }
                return Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: read.page(rows))))
            } catch {
                return problem(.serviceUnavailable, "the event history's store failed: \(error)")
            }
        }
    }

    private static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var writer = JSONWriter(capacity: 64 + message.utf8.count)
        writer.object { $0.field("error", message) }
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }

    private static func report(_ report: HealthReport) -> Response {
        Response(
            status: report.ok ? .ok : .serviceUnavailable, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: report.json)))
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension GatewayConfiguration {
    /// The HTTP listeners' certificate and key (`http.tls.*`), or nil: plain HTTP.
    var httpTLSFiles: HTTPService.TLSFiles? {
        guard let chain = http.tlsCertificateFile, let key = http.tlsKeyFile else { return nil }
        return HTTPService.TLSFiles(certificateChain: chain, privateKey: key)
    }
}
