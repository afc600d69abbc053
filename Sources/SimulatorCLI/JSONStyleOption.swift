import ArgumentParser
import TelemetrySimulation

/// `--json-style`: how the JSON of the high-rate streams is written.
enum JSONStyleOption: String, ExpressibleByArgument, CaseIterable {
    /// The simulator's own: values at sensor resolution, the encoders' member order.
    case tidy
    /// Full-precision doubles (shortest round-trip, 15–17 digits) in the encoders' member order.
    case precise
    /// Full-precision doubles, members in reverse order, whitespace after `,` and `:`.
    case reordered

    /// The style it selects.
    var style: JSONStyle { JSONStyle(rawValue: rawValue) ?? .tidy }

    static let help = ArgumentHelp(
        "JSON of the high-rate streams: tidy (sensor resolution, at most 6 decimals), precise (full-precision doubles as a stock JSON encoder writes them), or reordered (precise, members in reverse order, whitespace after , and :). Ignored for frames sent as protobuf.")
}
