import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private mosquitto on a free loopback port, started and killed by the test itself.
///
/// Killed with SIGKILL, as a crash would end it.
public final class TestBroker: @unchecked Sendable {
    /// The loopback port it listens on.
    public private(set) var port: Int
    public let directory: URL
    private let extraConfiguration: String
    private let allowAnonymous: Bool
    /// Keeps sessions and their queued messages in its directory across a graceful restart.
    private let persistent: Bool
    /// A complete configuration that replaces the generated one (``init(completeConfiguration:port:)``).
    private let completeConfiguration: String?
    private var process: ChildProcess?
    private let logURL: URL

    /// The broker's URL for clients.
    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Starts a broker. `configuration` lines are appended to the generated config (the
    /// listener line is written here).
    /// `user root` keeps mosquitto from dropping privileges when the tests run as root, so it
    /// can read password and ACL files in the repository; elsewhere it is ignored.
    /// With `persistent`, sessions, subscriptions and queued messages are kept on disk in
    /// ``directory`` and survive ``restartedGracefully()`` (mosquitto writes them when it stops).
    public init(configuration: String = "", port: Int? = nil, allowAnonymous: Bool = true, persistent: Bool = false) throws {
        self.allowAnonymous = allowAnonymous
        self.persistent = persistent
        completeConfiguration = nil
        self.port = try port ?? TestBroker.freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wg-broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logURL = directory.appendingPathComponent("mosquitto.log")
        extraConfiguration = configuration
        // The kernel can hand the same free port to a test starting in parallel; then one of
        // the two mosquittos cannot bind it, and the other test's broker would answer. Such a
        // start fails (see `start()`) and is retried on a new port unless the port was given.
        var attempts = 1
        while true {
            do {
                try start()
                return
            } catch let error as PortInUse {
                guard port == nil, attempts < 5 else { throw TestFailure(error.description) }
                attempts += 1
                self.port = try TestBroker.freePort()
            }
        }
    }

    /// Starts a broker like ``init(configuration:port:allowAnonymous:)``, waiting for mosquitto
    /// on a thread of its own: async tests share Swift's cooperative pool (one thread per core),
    /// and polling for a broker's start there would hold up every other test's tasks.
    public static func started(configuration: String = "", port: Int? = nil, allowAnonymous: Bool = true, persistent: Bool = false) async throws -> TestBroker {
        try await offPool { try TestBroker(configuration: configuration, port: port, allowAnonymous: allowAnonymous, persistent: persistent) }
    }

    /// Starts a broker like ``init(completeConfiguration:port:)``, off the cooperative pool.
    public static func started(completeConfiguration: String, port: Int) async throws -> TestBroker {
        try await offPool { try TestBroker(completeConfiguration: completeConfiguration, port: port) }
    }

    /// Kills and starts the broker again, like ``restart()``, off the cooperative pool.
    public func restarted() async throws {
        try await offPool { try self.restart() }
    }

    /// Stops the broker with SIGTERM, as an operator's restart does (a persistent broker
    /// writes its sessions and queued messages first), and starts it again on the same port,
    /// off the cooperative pool.
    public func restartedGracefully() async throws {
        try await offPool {
            if let process = self.process {
                process.signal(SIGTERM)
                process.waitUntilExit(timeout: 30)
                self.process = nil
            }
            try self.start()
        }
    }

    /// mosquitto exited because its port was taken.
    private struct PortInUse: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts a broker with `completeConfiguration` as its whole config file (it must open a
    /// listener on `port`, which is waited for).
    public init(completeConfiguration: String, port: Int) throws {
        allowAnonymous = false
        persistent = false
        self.completeConfiguration = completeConfiguration
        self.port = port
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wg-broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logURL = directory.appendingPathComponent("mosquitto.log")
        extraConfiguration = ""
        try start()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts (or restarts) mosquitto on the same port and waits until it accepts connections.
    public func start() throws {
        let config = completeConfiguration ?? """
            listener \(port) 127.0.0.1
            allow_anonymous \(allowAnonymous)
            persistence \(persistent)
            persistence_location \(directory.path)/
            user root
            log_dest stderr
            log_type error
            log_type warning
            log_type notice
            log_type information
            log_type subscribe
            max_queued_messages 100000
            max_inflight_messages 100
            \(extraConfiguration)
            """
        let configURL = directory.appendingPathComponent("mosquitto.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        let process = try ChildProcess(
            URL(fileURLWithPath: TestBroker.mosquittoBinary), ["-c", configURL.path], standardOutput: .file(logURL))
        self.process = process
        try waitUntilRunning(process, timeout: 10)
        try TestBroker.waitUntilAccepting(port: port, timeout: 10) { [log = logURL] in
            (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
    }

    /// Waits until this mosquitto logged that it runs (its listener is open), so a connection
    /// to the port reaches this broker and not another one on the same port.
    /// - Throws: ``PortInUse`` when it exited because the port was taken.
    private func waitUntilRunning(_ process: ChildProcess, timeout: Double) throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if log.contains(" running") { return }
            if let termination = process.termination {
                let text = log
                self.process = nil
                if text.contains("Address already in use") { throw PortInUse(description: "port \(port) is in use:\n\(text)") }
                throw TestFailure("mosquitto ended (\(termination)):\n\(text)")
            }
            usleep(10_000)
        }
        throw TestFailure("mosquitto did not report running within \(timeout) s:\n\(log)")
    }

    /// Waits until the broker logged that `clientID` subscribed to `filter` (the generated
    /// configuration logs subscriptions): the readiness of a subscriber that says nothing
    /// itself, such as the gateway's inbound connection.
    /// - Throws: when no such subscription shows within `timeout` seconds.
    public func waitForSubscription(clientID: String, filter: String, timeout: Double = 20) async throws {
        try await waitForSubscription(clientIDStartingWith: clientID + " ", filter: filter, timeout: timeout)
    }

    /// Waits until the broker logged that a client whose id starts with `prefix` subscribed to
    /// `filter`: for clients that add a random suffix to their id (`wearable-sim publish
    /// --expect` connects as `wearable-sim-expect-…`).
    /// - Throws: when no such subscription shows within `timeout` seconds.
    public func waitForSubscription(clientIDStartingWith prefix: String, filter: String, timeout: Double = 20) async throws {
        let entry = ": \(prefix)"
        // A subscription line is "<time>: <client id> <qos> <filter>".
        let subscribed = await poll(logURL, timeout: timeout) { log in
            log.split(separator: "\n").contains { $0.contains(entry) && $0.hasSuffix(" " + filter) }
        }
        if subscribed { return }
        throw TestFailure("no client \(prefix)… subscribed to \(filter) within \(timeout) s; broker log:\n\(log)")
    }

    /// Kills the broker at once (no clean shutdown), as a crash or power loss would.
    public func kill() {
        guard let process else { return }
        process.signal(SIGKILL)
        process.signal(SIGCONT)
        // SIGKILL cannot be caught; the bound only keeps a kernel hiccup from hanging a test.
        process.waitUntilExit(timeout: 30)
        self.process = nil
    }

    /// Freezes the broker (SIGSTOP): connections stay open but nothing is answered, as with a
    /// hung broker or a stalled network.
    public func freeze() {
        process?.signal(SIGSTOP)
    }

    /// Lets a frozen broker run again (SIGCONT).
    public func thaw() {
        process?.signal(SIGCONT)
    }

    /// Kills the broker and deletes its directory (configuration, log, the gateway's recorder
    /// store): what a process that exits without running deinitializers must call.
    public func shutdown() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills and starts the broker again on the same port; sessions are lost (no persistence).
    public func restart() throws {
        kill()
        try start()
    }

    /// What the broker logged so far.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The repository root (for config files the tests use).
    public static let repositoryRoot: URL = {
        if let root = ProcessInfo.processInfo.environment["WG_REPO_ROOT"], !root.isEmpty { return URL(fileURLWithPath: root) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }()

    public static var mosquittoBinary: String {
        if let path = ProcessInfo.processInfo.environment["MOSQUITTO_BIN"], !path.isEmpty { return path }
        for candidate in ["/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto", "/usr/bin/mosquitto"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "mosquitto"
    }

    /// Asks the kernel for a free loopback port. Only named: it is free again at once, and a test
    /// running in parallel can be given it too (hold a ``PortReservation`` to keep it).
    public static func freePort() throws -> Int {
        try PortReservation().port
    }

    /// Polls until a TCP connection to the port succeeds: readiness, not a fixed sleep.
    public static func waitUntilAccepting(port: Int, timeout: Double, diagnostics: () -> String) throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if canConnect(port: port) { return }
            usleep(20_000)
        }
        throw TestFailure("nothing accepted connections on port \(port) within \(timeout) s:\n\(diagnostics())")
    }

    /// The address 127.0.0.1:`port` (0: any free port, for `bind`).
    public static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    public static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// A test set-up failure with a message.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
