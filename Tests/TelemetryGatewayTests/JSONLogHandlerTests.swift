import Foundation
import Locking
import Logging
import Metrics
import TelemetryCore
import Testing
import Tracing

@testable import TelemetryGateway

/// `logging.format: json`: one JSON object per line.
@Suite struct JSONLogHandlerTests {
    final class Lines: Sendable {
        let bytes = LockedState<[UInt8]>([])
        var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
    }

    /// The handler's clock in these tests: 2027-01-15T08:00:00.250Z.
    private static let clock = ManualGatewayClock(wallTime: 1_800_000_000.25)

    private static func logger(_ lines: Lines, level: Logger.Level = .info) -> Logger {
        let output = JSONLogHandler.Output { bytes in lines.bytes.withLock { $0 += bytes } }
        var logger = Logger(label: "wearable-gateway") { label in JSONLogHandler(label: label, clock: clock, output: output) }
        logger.logLevel = level
        return logger
    }

    @Test("each record is one line holding one JSON object with time, level, label, message and metadata")
    func fields() throws {
        let lines = Lines()
        var logger = Self.logger(lines)
        logger[metadataKey: "connection"] = "subscriber"
        logger.info("subscribed to \"wearables/+/#\"\nand more", metadata: ["shards": .array(["0", "1"]), "broker": .dictionary(["port": .stringConvertible(1883)])])
        logger.warning("second")
        logger.debug("not logged at info")
        let text = lines.text
        #expect(text.hasSuffix("\n"))
        let records = text.split(separator: "\n")
        try #require(records.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(records[0].utf8)) as? [String: Any])
        #expect(first["level"] as? String == "info")
        #expect(first["label"] as? String == "wearable-gateway")
        #expect(first["message"] as? String == "subscribed to \"wearables/+/#\"\nand more", "quotes and newlines are escaped, not line breaks")
        let metadata = try #require(first["metadata"] as? [String: Any])
        #expect(metadata["connection"] as? String == "subscriber")
        #expect(metadata["shards"] as? [String] == ["0", "1"])
        #expect((metadata["broker"] as? [String: String]) == ["port": "1883"])
        let time = try #require(first["time"] as? String)
        #expect(time == "2027-01-15T08:00:00.250Z", "UTC with milliseconds, on the handler's clock")
        let second = try #require(try JSONSerialization.jsonObject(with: Data(records[1].utf8)) as? [String: Any])
        #expect(second["level"] as? String == "warning")
        #expect((second["metadata"] as? [String: Any])?["connection"] as? String == "subscriber")
    }

    @Test("debug records name the file and line")
    func debugLocation() throws {
        let lines = Lines()
        Self.logger(lines, level: .debug).debug("where")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(lines.text.utf8)) as? [String: Any])
        #expect((record["file"] as? String)?.hasSuffix("JSONLogHandlerTests.swift") == true)
        #expect(record["line"] is Int)
    }

    @Test("while a frame's span is the current context, lines carry its trace_id and span_id; before and after, none")
    func spanIdentifiers() throws {
        let lines = Lines()
        let output = JSONLogHandler.Output { bytes in lines.bytes.withLock { $0 += bytes } }
        let logger = Logger(label: "wearable-gateway") { label in JSONLogHandler(label: label, clock: Self.clock, output: output, metadataProvider: JSONLogHandler.spanMetadata) }
        var configuration = GatewayConfiguration()
        // Nothing listens there; the exporting service is not run, so nothing is sent.
        configuration.tracing.otlpEndpoint = "http://127.0.0.1:9"
        let quiet = Logger(label: "tracing") { _ in SwiftLogNoOpLogHandler() }
        let (tracing, _) = try #require(
            try FrameTracing.start(configuration: configuration, logger: quiet, metricsFactory: NOOPMetricsHandler.instance, clock: SystemGatewayClock(), environment: [:]))
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        var frame = InboundFrame(topic: "wearables/w-1/status", payload: Array(#"{"state":"online"}"#.utf8), receivedAt: 1_800_000_000)
        frame.traceParent = TraceParent("00-\(traceID)-00f067aa0ba902b7-01")
        let span = tracing.begin(frame, topic: TopicScheme().parseInbound(frame.topic))
        logger.info("before")
        ServiceContext.$current.withValue(span.span.context) {
            logger.info("during")
        }
        logger.info("after")
        let records = try lines.text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        try #require(records.count == 3)
        let metadata = records.map { $0["metadata"] as? [String: Any] ?? [:] }
        #expect(metadata[1]["trace_id"] as? String == traceID, "\(metadata[1])")
        let spanID = try #require(metadata[1]["span_id"] as? String)
        #expect(span.traceParent?.value.contains(spanID) == true, "the span's own id, not the parent's")
        #expect(metadata[0]["trace_id"] == nil && metadata[2]["trace_id"] == nil)
    }
}
