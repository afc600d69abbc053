import BrokerTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real `wearable-gateway` executable as a child process, for what only a process can
/// show: signals and crashes.
final class GatewayProcess: @unchecked Sendable {
    private let process: ChildProcess
    let logURL: URL

    /// The built executable: next to the test bundle, or `WG_GATEWAY_BIN`.
    static var executable: URL { builtExecutable("wearable-gateway", override: "WG_GATEWAY_BIN") }

    /// Starts the executable against `broker`. Its journal and recorder store live in
    /// `dataDirectory` (a fresh one per process unless a test restarts a gateway on the same data);
    /// `environment` is added to this process's. A `launcher` (an absolute program path and its
    /// arguments) runs first and is given the executable and its arguments to `exec`.
    init(
        broker: TestBroker, arguments: [String] = [], dataDirectory: URL? = nil, environment: [String: String] = [:], launcher: [String] = []
    ) throws {
        self.broker = broker
        let defaultClientID = "gw-proc-\(UUID().uuidString.prefix(6))"
        // The last --set wins, as in the executable.
        clientID = arguments.last { $0.hasPrefix("mqtt.clientId=") }.map { String($0.dropFirst("mqtt.clientId=".count)) } ?? defaultClientID
        // Clustered instances put their name into their client ids.
        instance = arguments.last { $0.hasPrefix("cluster.instance=") }.map { String($0.dropFirst("cluster.instance=".count)) }
        partitioned = arguments.last { $0.hasPrefix("cluster.mode=") } == "cluster.mode=partitioned"
        let data = dataDirectory ?? broker.directory.appendingPathComponent("gw-data-\(UUID().uuidString.prefix(6))")
        self.dataDirectory = data
        logURL = broker.directory.appendingPathComponent("gateway-\(UUID().uuidString.prefix(6)).log")
        let arguments =
            [
                "run", "--broker", broker.url, "--set", "mqtt.clientId=\(defaultClientID)", "--set", "mqtt.reconnect.maxDelay=0.5",
                "--set", "journal.path=\(data.appendingPathComponent("journal.bin").path)", "--set", "journal.sizeBytes=33554432",
                "--set", "recorder.database=\(data.appendingPathComponent("recorder.sqlite").path)", "--set", "http.listen=127.0.0.1:0",
                "--set", "state.path=\(data.appendingPathComponent("state.sqlite").path)",
            ]
            + arguments
        let (program, words) =
            launcher.isEmpty
            ? (Self.executable, arguments) : (URL(fileURLWithPath: launcher[0]), Array(launcher.dropFirst()) + [Self.executable.path] + arguments)
        process = try ChildProcess(program, words, in: TestBroker.repositoryRoot, environment: environment, standardOutput: .file(logURL))
    }

    /// Where its journal, recorder and device state live: a restart on the same disk passes it again.
    let dataDirectory: URL
    /// The `mqtt.clientId` the process runs with (its subscriber is `<clientId>-in`, or
    /// `<clientId>-<instance>-in` with a `cluster.instance`).
    let clientID: String
    /// The `cluster.instance` given on the command line, if any.
    let instance: String?
    /// Whether it runs in partitioned mode (it subscribes the discovery streams, then each owned device).
    let partitioned: Bool
    /// The subscriber connection's client id.
    var subscriberClientID: String { "\(clientID)\(instance.map { "-\($0)" } ?? "")-in" }
    private let broker: TestBroker

    /// Returns once the gateway's subscriber has subscribed to the device topics (the broker
    /// logs it). The gateway announces `gateway/status` online only after that on its first
    /// start, but after a broker restart its publisher may announce online again first.
    /// The bound is generous: a start-up is not what a test measures, and a debug build's start
    /// beside a dozen other instances on two cores once took more than 20 s (CI). A failure
    /// shows the gateway's own log with the broker's.
    func waitUntilSubscribed(timeout: Double = 60) async throws {
        do {
            try await broker.waitForSubscription(clientID: subscriberClientID, filter: partitioned ? "wearables/+/status" : "wearables/+/#", timeout: timeout)
        } catch {
            throw TestFailure("\(error)\ngateway log (\(instance ?? clientID)):\n\(log.split(separator: "\n").suffix(60).joined(separator: "\n"))")
        }
    }

    /// The process's peak resident memory (VmHWM), in bytes, while it runs.
    var peakResidentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    /// Sends a signal.
    func signal(_ signal: Int32) {
        process.signal(signal)
    }

    /// Waits (off the cooperative pool) for the process to end; returns its exit status (or the
    /// number of the signal that ended it).
    func waitForExit(timeout: Double) async throws -> Int32 {
        guard let termination = await process.exited(timeout: timeout) else {
            throw TestFailure("gateway did not exit within \(timeout) s; \(process.diagnosis)\nlog:\n\(log)")
        }
        return termination.status
    }

    /// Waits until the log contains `text`, e.g. "subscribed to".
    func waitForLog(_ text: String, timeout: Double) async throws {
        guard await poll(logURL, timeout: timeout, until: { $0.contains(text) }) else {
            throw TestFailure("the gateway did not log '\(text)' within \(timeout) s; log:\n\(log)")
        }
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
}

/// A product executable of this package: `$override` if set, else the first `name` found
/// walking up from the test binary (the build directory), else `.build/debug/name`.
func builtExecutable(_ name: String, override: String) -> URL {
    if let path = ProcessInfo.processInfo.environment[override], !path.isEmpty { return URL(fileURLWithPath: path) }
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return TestBroker.repositoryRoot.appendingPathComponent(".build/debug/\(name)")
}
