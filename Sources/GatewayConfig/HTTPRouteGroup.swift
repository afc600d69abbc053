/// The HTTP routes that share one access rule (`http.auth.*TokenFile`).
public enum HTTPRouteGroup: String, Sendable, CaseIterable, Hashable {
    /// `GET /metrics`, on both listeners.
    case metrics
    /// `GET /api/*` (the fleet's data, its live updates, the event history) and `GET /openapi.yaml`.
    case api
    /// The fleet page: `GET /`, `/fleet.js`, `/fleet.css`.
    case page
    /// `GET /healthz`, `GET /readyz`: open unless a token file is set, because kubelet probes
    /// and container health checks cannot present a token.
    case health

    /// The key naming the group's token file.
    public var tokenFileKey: String { "http.auth.\(rawValue)TokenFile" }
}
