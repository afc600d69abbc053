import GatewayTime
import RecorderStore

/// What the HTTP server serves, as small closures so it depends on no gateway internals.
public struct HTTPEndpoints: Sendable {
    /// Prometheus text exposition of every metric (`GET /metrics`).
    public var metrics: @Sendable () -> [UInt8]
    /// Liveness (`GET /healthz`).
    public var liveness: @Sendable () -> HealthReport
    /// Readiness (`GET /readyz`).
    public var readiness: @Sendable () -> HealthReport
    /// The fleet page's data (`GET /api/fleet`, `GET /api/events`).
    public var fleet: FleetView
    /// The event history (`GET /api/devices/{id}/events`); nil while it is off (404).
    public var history: (any EventHistoryStoring)?
    /// The clock a history read's deadline (``historyDeadline``) runs on.
    public var clock: any GatewayClock
    /// Which route groups need a token.
    public var access: HTTPAccess

    /// Seconds a history read may take before the request is answered 503: a store that does
    /// not answer must not hold HTTP requests (and their connections) for ever.
    public static let historyDeadline = 10.0

    /// Creates the endpoints.
    public init(
        metrics: @escaping @Sendable () -> [UInt8], liveness: @escaping @Sendable () -> HealthReport,
        readiness: @escaping @Sendable () -> HealthReport, fleet: FleetView, history: (any EventHistoryStoring)? = nil,
        clock: any GatewayClock = SystemGatewayClock(), access: HTTPAccess = .open
    ) {
        self.clock = clock
        self.access = access
        self.metrics = metrics
        self.liveness = liveness
        self.readiness = readiness
        self.fleet = fleet
        self.history = history
    }
}
