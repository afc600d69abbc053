import CoreMetrics
import Logging
import Testing

@testable import TelemetryGateway

/// The `tracing.*` keys: export is off unless an endpoint is set, and then spans go to its
/// OTLP/HTTP traces path. (The export itself: Tests/TraceExport, against an OTLP receiver.)
@Suite struct TracingConfigurationKeysTests {
    private static func load(_ overrides: [(key: String, value: String)], environment: [String: String] = [:]) throws(ConfigurationError) -> GatewayConfiguration {
        try ConfigurationLoader.load(file: nil, environment: environment, overrides: [("registry.file", "null")] + overrides).configuration
    }

    @Test("defaults: off, service wearable-gateway, every root frame sampled; off means no tracer")
    func defaults() throws {
        let tracing = try Self.load([]).tracing
        #expect(tracing.otlpEndpoint == nil && !tracing.isEnabled && tracing.tracesURL == nil)
        #expect(tracing.serviceName == "wearable-gateway")
        #expect(tracing.sampleRatio == 1)
        #expect(try FrameTracing.start(configuration: Self.load([]), logger: Logger(label: "test"), metricsFactory: NOOPMetricsHandler.instance, clock: SystemGatewayClock()) == nil)
        #expect(GatewayConfiguration.keys.first { $0.path == "tracing.otlpEndpoint" }?.defaultValue == "off")
    }

    @Test("the endpoint applies from flags and the environment; spans go to <endpoint>/v1/traces")
    func apply() throws {
        let tracing = try Self.load(
            [("tracing.otlpEndpoint", "http://collector:4318"), ("tracing.sampleRatio", "0.25")], environment: ["WG_TRACING_SERVICE_NAME": "gw-eu"]
        ).tracing
        #expect(tracing.isEnabled && tracing.tracesURL == "http://collector:4318/v1/traces")
        #expect(tracing.sampleRatio == 0.25 && tracing.serviceName == "gw-eu")
        #expect(try Self.load([("tracing.otlpEndpoint", "https://otel.example.com/otlp/")]).tracing.tracesURL == "https://otel.example.com/otlp/v1/traces")
        #expect(try Self.load([("tracing.otlpEndpoint", "off")]).tracing.otlpEndpoint == nil)
        #expect(try Self.load([], environment: ["WG_TRACING_OTLP_ENDPOINT": ""]).tracing.otlpEndpoint == nil)
    }

    @Test("OTEL_* asking for gRPC (not in this build; swift-otel would trap) stops the start, naming the key")
    func grpcRefused() throws {
        let configuration = try Self.load([("tracing.otlpEndpoint", "http://127.0.0.1:4318")])
        do {
            _ = try FrameTracing.start(
                configuration: configuration, logger: Logger(label: "test"), metricsFactory: NOOPMetricsHandler.instance, clock: SystemGatewayClock(), environment: ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
            Issue.record("gRPC was accepted")
        } catch let error as GatewayStartError {
            #expect(error.description.hasPrefix("tracing.otlpEndpoint: OTEL_EXPORTER_OTLP_PROTOCOL=grpc"), "\(error)")
        }
        // The signal's own variable wins over the shared one, as in swift-otel.
        #expect(FrameTracing.unsupportedProtocol(in: ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]) == nil)
        #expect(FrameTracing.unsupportedProtocol(in: ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"])?.hasPrefix("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc") == true)
        #expect(FrameTracing.unsupportedProtocol(in: ["OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"]) == nil)
    }

    @Test("bad values name the key", arguments: [
        ("tracing.otlpEndpoint", "ftp://collector:4318", "must be an http:// or https:// URL"),
        ("tracing.otlpEndpoint", "collector:4318", "must be an http:// or https:// URL"),
        ("tracing.otlpEndpoint", "http://", "must be an http:// or https:// URL"),
        ("tracing.otlpEndpoint", "http://collector:4318/?a=1", "no query"),
        ("tracing.sampleRatio", "1.5", "must be a number from 0.0 to 1.0"),
    ])
    func invalid(key: String, value: String, message: String) {
        do {
            _ = try Self.load([(key, value)])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == key && $0.message.contains(message) }, "\(error.issues)")
        }
    }
}
