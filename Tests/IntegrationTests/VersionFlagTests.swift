import BrokerTestSupport
import Foundation
import Testing

@testable import TelemetryCore

/// `--version` of both executables prints the one project version.
@Suite struct VersionFlagTests {
    @Test("wearable-gateway and wearable-sim print ProductVersion.current", arguments: ["wearable-gateway", "wearable-sim"])
    func version(executable: String) async throws {
        let (status, output) = try await runChildProcess(
            GatewayProcess.executable.deletingLastPathComponent().appendingPathComponent(executable), ["--version"])
        #expect(status == 0)
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == ProductVersion.current)
    }
}
