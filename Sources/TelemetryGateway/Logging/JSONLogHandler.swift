import Foundation
import Locking
import Logging
import OTel
import TelemetryCore

/// A swift-log handler that writes one JSON object per line (`logging.format: json`):
/// `{"time":"2026-11-22T12:00:00.123Z","level":"info","label":"wearable-gateway","message":"…","metadata":{…}}`,
/// plus `source` (the module) and, at debug and trace, `file` and `line`. Log shippers
/// (Loki, Elasticsearch, CloudWatch) read it without parsing rules.
public struct JSONLogHandler: LogHandler {
    /// Where the lines go; one lock keeps concurrent lines whole.
    public final class Output: Sendable {
        private let write: LockedState<@Sendable ([UInt8]) -> Void>

        /// Lines go to `write`, one call per line including its newline.
        public init(_ write: @escaping @Sendable ([UInt8]) -> Void) {
            self.write = LockedState(write)
        }

        /// Standard error, unbuffered.
        public static let standardError = Output { bytes in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }

        func emit(_ line: [UInt8]) {
            write.withLock { $0(line) }
        }
    }

    /// The logger's label, e.g. `wearable-gateway`.
    public let label: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let output: Output
    /// Where a line's time is read (wall clock).
    private let clock: any GatewayClock
    /// UTC with milliseconds and `Z`, e.g. `2026-11-22T12:00:00.123Z`.
    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// Adds `trace_id`, `span_id` and `trace_flags` to the lines written while a span is the
    /// task's current context: with tracing on (`tracing.otlpEndpoint`), while a worker processes
    /// a frame, its span's; nothing otherwise. The executable passes it as `metadataProvider`.
    public static let spanMetadata: Logger.MetadataProvider = OTel.makeLoggingMetadataProvider()

    /// Creates a handler for `label` writing to `output`, its lines timed on `clock`.
    public init(label: String, clock: any GatewayClock, output: Output = .standardError, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.clock = clock
        self.output = output
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var writer = JSONWriter(capacity: 256)
        writer.object {
            $0.field("time", Self.timeFormat.format(Date(timeIntervalSince1970: clock.wallTime())))
            $0.field("level", event.level.rawValue)
            $0.field("label", label)
            $0.field("message", event.message.description)
            $0.field("metadata", object: { object in
                for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                    object.key(key)
                    Self.write(value, to: &object)
                }
            })
            $0.field("source", event.source)
            if event.level <= .debug {
                $0.field("file", event.file)
                $0.field("line", Int(event.line))
            }
        }
        var line = writer.bytes
        line.append(UInt8(ascii: "\n"))
        output.emit(line)
    }

    private static func write(_ value: Logger.Metadata.Value, to writer: inout JSONWriter) {
        switch value {
        case .string(let text): writer.value(text)
        case .stringConvertible(let convertible): writer.value(convertible.description)
        case .array(let values):
            writer.array { list in values.forEach { write($0, to: &list) } }
        case .dictionary(let dictionary):
            writer.object { object in
                for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
                    object.key(key)
                    write(value, to: &object)
                }
            }
        }
    }
}
