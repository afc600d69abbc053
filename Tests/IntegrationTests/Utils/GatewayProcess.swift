import BrokerTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real `wearable-gateway` executable as a child process, for what only a process can
/// show: signals and crashes.
final class GatewayProcess: @unchecked Sendable {
    private let process = Process()
    let logURL: URL

    /// The built executable: next to the test bundle, or `WG_GATEWAY_BIN`.
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["WG_GATEWAY_BIN"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("wearable-gateway")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return TestBroker.repositoryRoot.appendingPathComponent(".build/debug/wearable-gateway")
    }

    init(broker: TestBroker, arguments: [String] = []) throws {
        logURL = broker.directory.appendingPathComponent("gateway-\(UUID().uuidString.prefix(6)).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.executableURL = Self.executable
        process.currentDirectoryURL = TestBroker.repositoryRoot
        process.arguments =
            ["run", "--broker", broker.url, "--set", "mqtt.clientId=gw-proc-\(UUID().uuidString.prefix(6))", "--set", "mqtt.reconnect.maxDelay=0.5",
                "--set", "http.listen=127.0.0.1:0"]
            + arguments
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Sends a signal.
    func signal(_ signal: Int32) {
        Glibc.kill(process.processIdentifier, signal)
    }

    /// Waits (off the cooperative pool) for the process to exit; returns its status.
    func waitForExit(timeout: Double) async throws -> Int32 {
        let process = process
        let exited = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                let deadline = Date(timeIntervalSinceNow: timeout)
                while process.isRunning && Date() < deadline { usleep(10_000) }
                continuation.resume(returning: !process.isRunning)
            }.start()
        }
        guard exited else { throw TestFailure("gateway did not exit within \(timeout) s; log:\n\(log)") }
        return process.terminationStatus
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
}
