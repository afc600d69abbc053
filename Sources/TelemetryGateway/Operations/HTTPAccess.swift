import CoreMetrics

/// Who may read which HTTP route group: the tokens of `http.auth.*TokenFile` and the count of
/// the requests refused (`gateway_http_requests_refused_total{group}`), so an operator sees a
/// scraper or a page left with an old token.
public struct HTTPAccess: Sendable {
    /// The tokens per group.
    public let tokens: HTTPAccessTokens
    private let refusals: [HTTPRouteGroup: Counter]

    /// Every group open, nothing counted (tests, listeners built without a configuration).
    public static let open = HTTPAccess(tokens: HTTPAccessTokens(), refusals: [:])

    /// Access by `tokens`, refusals counted through `metricsFactory`.
    public init(tokens: HTTPAccessTokens, metricsFactory: any MetricsFactory) {
        var refusals: [HTTPRouteGroup: Counter] = [:]
        for group in HTTPRouteGroup.allCases where tokens.isProtected(group) {
            refusals[group] = Counter(label: "gateway_http_requests_refused_total", dimensions: [("group", group.rawValue)], factory: metricsFactory)
        }
        self.init(tokens: tokens, refusals: refusals)
    }

    private init(tokens: HTTPAccessTokens, refusals: [HTTPRouteGroup: Counter]) {
        self.tokens = tokens
        self.refusals = refusals
    }

    /// Whether `presented` (a bearer token or a Basic password; nil: none) opens `group`;
    /// a refusal is counted.
    func admits(_ presented: String?, to group: HTTPRouteGroup) -> Bool {
        if tokens.admits(presented, to: group) { return true }
        refusals[group]?.increment()
        return false
    }
}
