import Foundation
import TelemetryCore

/// Golden payloads under `Fixtures/json/`, one per stream, named after the stream with `/`
/// replaced by `-` (`batched-accelerometer.json`). Read relative to this source file, so no
/// bundle resources are needed.
enum Fixture {
    /// The fixture directory next to the test sources.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Utils
        .deletingLastPathComponent()  // TelemetryCoreTests
        .appendingPathComponent("Fixtures/json")

    /// The golden JSON payload of `stream`.
    static func json(_ stream: InboundStream) throws -> [UInt8] {
        let name = stream.rawValue.replacingOccurrences(of: "/", with: "-") + ".json"
        return Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }
}
