import ArgumentParser
import TelemetryCore

/// `--encoding`: how the high-rate streams are published.
enum EncodingOption: String, ExpressibleByArgument, CaseIterable {
    /// The contract's JSON for every stream.
    case json
    /// Protocol Buffers (`application/x-protobuf`) for the high-rate streams, JSON for the rest.
    case protobuf

    /// The payload encoding it selects.
    var encoding: PayloadEncoding { self == .json ? .json : .protobuf }

    static let help = ArgumentHelp(
        "Payload encoding of the high-rate streams: json, or protobuf (application/x-protobuf, proto/wearable/v1/telemetry.proto; other streams stay JSON).")
}
