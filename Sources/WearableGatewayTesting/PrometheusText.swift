import MQTTTransport
import TelemetryCore

/// Reads Prometheus text exposition (format 0.0.4: what the gateway publishes on
/// `gateway/metrics` and serves on `/metrics`): its samples, and each family's `# HELP` and
/// `# TYPE`.
///
/// Label values are read with the format's escapes (`\\`, `\"`, `\n`), so a value holding a
/// comma, a quote, a brace or an equals sign comes back as it was recorded; help texts with
/// theirs (`\\`, `\n`). Lines that are not samples or `# HELP`/`# TYPE` comments are skipped, as
/// is a malformed sample line (it is counted in ``malformedLines``).
public struct PrometheusText: Sendable {
    /// One sample: a series and its value.
    public struct Sample: Sendable, Equatable {
        /// The sample's name (for a histogram, with its `_bucket`, `_sum` or `_count` suffix).
        public var name: String
        /// The series' labels, unescaped.
        public var labels: [String: String]
        /// The value (`+Inf`, `-Inf` and `NaN` included).
        public var value: Double
    }

    /// The exposition text.
    public let text: String
    /// Every sample, in the text's order.
    public let samples: [Sample]
    /// The `# HELP` text of each family that has one, unescaped, by family name.
    public let help: [String: String]
    /// The `# TYPE` of each family that has one (`counter`, `gauge`, `histogram`, …), by family name.
    public let types: [String: String]
    /// Sample lines that could not be read.
    public let malformedLines: Int

    /// Parses exposition text.
    public init(text: String) {
        self.text = text
        var samples: [Sample] = []
        var help: [String: String] = [:]
        var types: [String: String] = [:]
        var malformed = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("#") {
                var reader = Reader(line.dropFirst())
                reader.skipSpaces()
                let keyword = reader.token()
                reader.skipSpaces()
                let family = reader.token()
                guard !family.isEmpty else { continue }
                if reader.peek == " " { reader.advance() }
                switch keyword {
                case "HELP": help[family] = Self.unescapeHelp(reader.rest)
                case "TYPE": types[family] = reader.rest.trimmingSpaces
                default: break
                }
            } else if let sample = Self.sample(line) {
                samples.append(sample)
            } else if !line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                malformed += 1
            }
        }
        self.samples = samples
        self.help = help
        self.types = types
        malformedLines = malformed
    }

    /// The last exposition among `messages` on `topic`, parsed; nil before the first. The
    /// default topic is the gateway's metrics topic under the default topic scheme
    /// (`gateway/metrics`); pass `configuration.topics.scheme.metricsTopic` for another.
    public static func latest(in messages: [MQTTMessage], topic: String = TopicScheme().metricsTopic) -> PrometheusText? {
        messages.last { $0.topic == topic }.map { PrometheusText(text: $0.payloadString) }
    }

    /// The sum of every sample of `name` whose labels include all of `labels`.
    public func sum(_ name: String, labels: [String: String] = [:]) -> Double {
        samples.reduce(0) { total, sample in
            sample.name == name && labels.allSatisfy({ sample.labels[$0.key] == $0.value }) ? total + sample.value : total
        }
    }

    /// The families that have samples or a `# TYPE` line, by name (a histogram's samples count
    /// under the family named in its `# TYPE` line).
    public var families: Set<String> {
        var names = Set(types.keys)
        for sample in samples where !names.contains(sample.name) {
            let family = ["_bucket", "_sum", "_count"].first { sample.name.hasSuffix($0) }.map { String(sample.name.dropLast($0.count)) }
            if let family, types[family] == "histogram" || types[family] == "summary" { continue }
            names.insert(sample.name)
        }
        return names
    }

    // MARK: Reading

    /// `name{label="value",…} value [timestamp]`; nil when the line is not of that shape.
    private static func sample(_ line: Substring) -> Sample? {
        var reader = Reader(line)
        reader.skipSpaces()
        let name = reader.token(stoppingAt: "{")
        guard !name.isEmpty else { return nil }
        var labels: [String: String] = [:]
        if reader.peek == "{" {
            reader.advance()
            while true {
                reader.skipSpaces()
                if reader.peek == "}" {
                    reader.advance()
                    break
                }
                let label = reader.token(stoppingAt: "=")
                guard !label.isEmpty, reader.peek == "=" else { return nil }
                reader.advance()
                guard reader.peek == "\"", let value = reader.quoted() else { return nil }
                labels[label] = value
                reader.skipSpaces()
                if reader.peek == "," { reader.advance() } else if reader.peek != "}" { return nil }
            }
        }
        reader.skipSpaces()
        guard let value = parseValue(reader.token()) else { return nil }
        // An optional timestamp (milliseconds) follows; it is not kept.
        return Sample(name: name, labels: labels, value: value)
    }

    private static func parseValue(_ text: String) -> Double? {
        switch text {
        case "+Inf", "Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
    }

    /// A help text with `\\` and `\n` read as the backslash and the line feed they stand for.
    private static func unescapeHelp(_ text: Substring) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// A cursor over one line.
    private struct Reader {
        private var rest_: Substring
        init(_ text: Substring) { rest_ = text }

        var peek: Character? { rest_.first }
        var rest: Substring { rest_ }
        mutating func advance() { rest_ = rest_.dropFirst() }
        mutating func skipSpaces() { rest_ = rest_.drop { $0 == " " || $0 == "\t" } }

        /// Characters up to a space, a tab or `stop`.
        mutating func token(stoppingAt stop: Character? = nil) -> String {
            let token = rest_.prefix { $0 != " " && $0 != "\t" && $0 != stop }
            rest_ = rest_.dropFirst(token.count)
            return String(token)
        }

        /// A double-quoted label value with its escapes (`\\`, `\"`, `\n`) read; nil if unterminated.
        mutating func quoted() -> String? {
            advance()
            var value = ""
            var escaped = false
            while let character = rest_.first {
                rest_ = rest_.dropFirst()
                if escaped {
                    value.append(character == "n" ? "\n" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    return value
                } else {
                    value.append(character)
                }
            }
            return nil
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
