import Foundation

/// A recorded session: what `wearable-sim record` (``CaptureRecorder``) wrote and
/// `wearable-sim replay` (``CaptureReplayer``) plays back.
///
/// The file is JSON Lines, UTF-8 (docs/testing.md, "Capture format"): a header line, one line
/// per frame in arrival order, and a trailer line written when the recording ended normally.
///
/// ```
/// {"format":"wearable-gateway-capture","version":1,"broker":"mqtt://127.0.0.1:1883","filter":"wearables/#","startedAt":1763800000.123}
/// {"t":0.0012,"topic":"wearables/watch-1/hello","qos":1,"retain":true,"stored":true,"payload":"eyJtb2RlbCI6…","properties":{"contentType":"application/json"}}
/// {"end":{"frames":2,"duration":15.02}}
/// ```
public struct SessionCapture: Sendable, Equatable {
    /// The value of the header's `format`.
    public static let formatName = "wearable-gateway-capture"
    /// The format version this code writes and reads.
    public static let version = 1

    /// The first line of a capture file.
    public struct Header: Sendable, Equatable, Codable {
        /// Always ``SessionCapture/formatName``.
        public var format: String
        /// The format version, ``SessionCapture/version``.
        public var version: Int
        /// The broker recorded from.
        public var broker: String
        /// The topic filter recorded.
        public var filter: String
        /// Unix epoch seconds when the recording began (frame times count from here).
        public var startedAt: Double

        /// Creates a header for this format version.
        public init(broker: String, filter: String, startedAt: Double) {
            format = SessionCapture.formatName
            version = SessionCapture.version
            self.broker = broker
            self.filter = filter
            self.startedAt = startedAt
        }
    }

    /// The last line, written when the recording ended normally.
    public struct Trailer: Sendable, Equatable, Codable {
        /// Frames in the file.
        public var frames: Int
        /// Seconds recorded.
        public var duration: Double

        /// Creates a trailer.
        public init(frames: Int, duration: Double) {
            self.frames = frames
            self.duration = duration
        }
    }

    /// The header.
    public var header: Header
    /// The frames, in arrival order.
    public var frames: [CapturedFrame]
    /// The trailer; nil when the recording was cut off (the recorder was killed).
    public var trailer: Trailer?

    /// Creates a capture.
    public init(header: Header, frames: [CapturedFrame], trailer: Trailer? = nil) {
        self.header = header
        self.frames = frames
        self.trailer = trailer
    }

    /// Reads a capture file.
    /// - Throws: ``CaptureFormatError`` naming the line that is not valid.
    public static func read(from url: URL) throws -> SessionCapture {
        let data = try Data(contentsOf: url)
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).enumerated().makeIterator()
        let decoder = JSONDecoder()
        guard let (_, first) = lines.next() else { throw CaptureFormatError(line: 1, "the file is empty") }
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: Data(first))
        } catch {
            throw CaptureFormatError(line: 1, "not a capture header: \(error)")
        }
        guard header.format == formatName else { throw CaptureFormatError(line: 1, "format is '\(header.format)', not '\(formatName)'") }
        guard header.version == version else {
            throw CaptureFormatError(line: 1, "version \(header.version) is not supported (this build reads version \(version))")
        }
        var capture = SessionCapture(header: header, frames: [])
        while let (index, line) = lines.next() {
            guard capture.trailer == nil else { throw CaptureFormatError(line: index + 1, "a line after the trailer") }
            do {
                if let end = try? decoder.decode(TrailerLine.self, from: Data(line)) {
                    capture.trailer = end.end
                } else {
                    capture.frames.append(try decoder.decode(CapturedFrame.self, from: Data(line)))
                }
            } catch {
                throw CaptureFormatError(line: index + 1, "not a frame: \(error)")
            }
        }
        if let trailer = capture.trailer, trailer.frames != capture.frames.count {
            throw CaptureFormatError(line: capture.frames.count + 2, "the trailer counts \(trailer.frames) frames but the file has \(capture.frames.count)")
        }
        return capture
    }

    /// Writes the capture to a file (header, frames, trailer when present).
    public func write(to url: URL) throws {
        var data = Data()
        data.append(try Self.line(header))
        for frame in frames { data.append(try Self.line(frame)) }
        if let trailer { data.append(try Self.line(TrailerLine(end: trailer))) }
        try data.write(to: url, options: .atomic)
    }

    /// One line of the file: compact JSON with sorted keys and a newline.
    static func line(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// The trailer line, `{"end":{…}}`.
    struct TrailerLine: Codable {
        var end: Trailer
    }
}

/// A capture file that does not follow the format.
public struct CaptureFormatError: Error, CustomStringConvertible {
    /// The 1-based line number.
    public var line: Int
    /// What is wrong.
    public var reason: String

    init(line: Int, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "capture line \(line): \(reason)" }
}
