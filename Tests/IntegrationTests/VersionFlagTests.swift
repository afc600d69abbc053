import Foundation
import Testing

@testable import TelemetryCore

/// `--version` of both executables prints the one project version.
@Suite struct VersionFlagTests {
    @Test("wearable-gateway and wearable-sim print ProductVersion.current", arguments: ["wearable-gateway", "wearable-sim"])
    func version(executable: String) throws {
        let process = Process()
        process.executableURL = GatewayProcess.executable.deletingLastPathComponent().appendingPathComponent(executable)
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == ProductVersion.current)
    }
}
