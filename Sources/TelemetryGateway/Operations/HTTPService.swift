import Hummingbird
import Logging
import ServiceLifecycle

/// The gateway's HTTP server (Hummingbird), one more service of the runtime:
///
/// | route | answer |
/// |---|---|
/// | `GET /metrics` | Prometheus text, `text/plain; version=0.0.4` |
/// | `GET /healthz` | 200 while the loops run, else 503; JSON body with the reasons |
/// | `GET /readyz` | 200 while both broker connections are up and queues below their limits, else 503 |
/// | `GET /` | the fleet page (HTML, JS and CSS compiled into the binary, no CDN) |
/// | `GET /api/fleet` | the fleet as JSON (``FleetView/snapshot()``) |
/// | `GET /api/events` | live fleet updates as server-sent events |
///
/// At graceful shutdown the event streams end, so the server's own drain is not held open.
public struct HTTPService: Service {
    private let address: HTTPListenAddress
    private let endpoints: HTTPEndpoints
    private let logger: Logger

    /// Creates the service; nothing listens until ``run()``.
    public init(address: HTTPListenAddress, endpoints: HTTPEndpoints, logger: Logger) {
        self.address = address
        self.endpoints = endpoints
        self.logger = logger
    }

    public func run() async throws {
        let application = Application(
            router: Self.router(endpoints),
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "wearable-gateway"),
            onServerRunning: { [logger, address] _ in logger.info("HTTP server listening on http://\(address)/ (metrics, healthz, readyz, fleet page)") },
            logger: logger)
        let fleet = endpoints.fleet
        try await withGracefulShutdownHandler {
            try await application.run()
        } onGracefulShutdown: {
            fleet.close()
        }
    }

    static func router(_ endpoints: HTTPEndpoints) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: endpoints.metrics())))
        }
        router.get("healthz") { _, _ in report(endpoints.liveness()) }
        router.get("readyz") { _, _ in report(endpoints.readiness()) }
        router.get("/") { _, _ in asset(FleetPage.html, type: "text/html; charset=utf-8") }
        router.get("fleet.js") { _, _ in asset(FleetPage.script, type: "text/javascript; charset=utf-8") }
        router.get("fleet.css") { _, _ in asset(FleetPage.style, type: "text/css; charset=utf-8") }
        router.get("api/fleet") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: endpoints.fleet.snapshot())))
        }
        router.get("api/events") { _, _ in
            let updates = endpoints.fleet.updates()
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    // A comment line first, so the browser sees the stream open at once.
                    try await writer.write(ByteBuffer(string: ": fleet updates\n\n"))
                    for await update in updates {
                        var buffer = ByteBuffer(string: "data: ")
                        buffer.writeBytes(update)
                        buffer.writeString("\n\n")
                        try await writer.write(buffer)
                    }
                    try await writer.finish(nil)
                })
        }
        return router
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
