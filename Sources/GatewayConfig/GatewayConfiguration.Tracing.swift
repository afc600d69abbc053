import Foundation

extension GatewayConfiguration {
    /// OpenTelemetry spans of frame processing, exported over OTLP/HTTP (keys under `tracing.*`).
    /// Off by default: without an endpoint no tracer exists and frames are processed as if
    /// tracing did not exist (docs/operations.md, "Traces").
    public struct Tracing: Sendable {
        /// Base URL of an OTLP/HTTP receiver (a collector), e.g. `http://127.0.0.1:4318`; spans
        /// are posted to `<endpoint>/v1/traces`. Nil (`off`): no export.
        public var otlpEndpoint: String?
        /// The `service.name` resource attribute of the spans.
        public var serviceName = "wearable-gateway"
        /// The share of frames without a trace context whose spans are sampled (exported); a
        /// frame with a `traceparent` follows its sampled flag.
        public var sampleRatio = 1.0

        /// Creates the defaults.
        public init() {}

        /// Whether spans are made and exported.
        public var isEnabled: Bool { otlpEndpoint != nil }

        /// Where spans are posted: the endpoint's `/v1/traces` (the OTLP/HTTP path).
        package var tracesURL: String? {
            otlpEndpoint.map { $0.hasSuffix("/") ? $0 + "v1/traces" : $0 + "/v1/traces" }
        }
    }
}

extension GatewayConfiguration.Tracing {
    /// The `tracing.*` keys.
    package static let keys: [ConfigurationKey] = [
        ConfigurationKey(
            "tracing.otlpEndpoint",
            "Base URL of an OTLP/HTTP receiver (http:// or https://HOST:PORT[/path]); one span per processed frame is posted to <endpoint>/v1/traces and events carry its traceparent. off: no tracer, no spans.",
            \.tracing.otlpEndpoint, describe: { $0 ?? "off" }
        ) { text in
            if ConfigurationKey.isNull(text) || text.lowercased() == "off" { return .value(nil) }
            return endpointProblem(text).map { .invalid($0) } ?? .value(text)
        },
        .text("tracing.serviceName", "service.name of the exported spans (OTEL_SERVICE_NAME overrides it).", \.tracing.serviceName),
        .number(
            "tracing.sampleRatio", "Share of frames without a traceparent whose spans are exported (0 to 1); a frame's traceparent decides for its own span (sampled flag).",
            in: 0...1, \.tracing.sampleRatio),
    ]

    /// What is wrong with an endpoint URL, or nil: an http or https URL with a host, without
    /// query or fragment (the path `/v1/traces` is appended).
    package static func endpointProblem(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            return "must be an http:// or https:// URL with a host and no query (e.g. http://127.0.0.1:4318), or off, got '\(text)'"
        }
        return nil
    }
}
