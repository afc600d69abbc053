import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The client in a process that holds many descriptors: its socket is numbered 1024 or more,
/// which `select()` (and so libmosquitto's `mosquitto_loop`) cannot watch. A gateway with many
/// HTTP clients or database connections, or a test process running many brokers and gateways,
/// is such a process.
@Suite("MQTT client on descriptors numbered 1024 and up")
struct HighDescriptorTests {
    /// Every descriptor below this number is held while the client starts.
    private static let floor: Int32 = 1_100

    @Test("connects, subscribes, publishes at QoS 1 and receives with its socket above 1023", .timeLimit(.minutes(5)))
    func highDescriptors() async throws {
        let broker = try await TestBroker.started()
        var ballast = try DescriptorBallast(floor: Self.floor)
        defer { ballast.close() }
        // Tests running beside this one close descriptors; a client that got one of those
        // numbers proves nothing here, so it is replaced (rarely more than once).
        var lowestSeen: [Int32?] = []
        for _ in 1...5 {
            try ballast.fill()
            let collector = MessageCollector()
            var configuration = try TestClients.configuration(broker)
            configuration.reconnect = .init(initialDelay: 0.1, maximumDelay: 0.5)
            let client = try MQTTClient(configuration: configuration, logger: TestClients.logger, onMessage: collector.handler)
            client.start()
            do {
                // A liveness bound (the suite's clients wait as long); before the external
                // loop, a client on such a socket never connected.
                try await client.waitUntilConnected(timeout: 30)
                let sockets = try Self.descriptors(connectedTo: broker.port)
                guard let lowest = sockets.min(), lowest >= 1_024 else {
                    lowestSeen.append(sockets.min())
                    await client.shutdown()
                    continue
                }
                try await client.subscribe(["fd/#"], qos: .atLeastOnce)
                let count = 50
                for index in 0..<count {
                    try await client.send(MQTTMessage(topic: "fd/\(index)", string: "\(index)", qos: .atLeastOnce))
                }
                #expect(await client.flush(timeout: 20))
                let received = try await collector.wait("all \(count) messages") { $0.count >= count }
                #expect(received.map(\.payloadString) == (0..<count).map { "\($0)" })
                #expect(received.allSatisfy { $0.qos == .atLeastOnce })
                #expect(client.statistics.publishesAcknowledged == UInt64(count))
                await client.shutdown()
                return
            } catch {
                await client.shutdown()
                throw error
            }
        }
        Issue.record("five clients in a row got no socket numbered above 1023 (lowest: \(lowestSeen)); the test proved nothing")
    }

    /// The descriptors of this process that hold a TCP connection to `port` on the loopback
    /// (its MQTT clients' sockets), read from `/proc/net/tcp` and `/proc/self/fd`.
    private static func descriptors(connectedTo port: Int) throws -> [Int32] {
        let table = try contents(of: "/proc/net/tcp")
        var inodes: Set<String> = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl, local address, remote address, state (01 = established), …, inode (10th).
            guard fields.count > 9, fields[3] == "01",
                let remotePort = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }), remotePort == port
            else { continue }
            inodes.insert(String(fields[9]))
        }
        var found: [Int32] = []
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard let number = Int32(entry),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast()))
            else { continue }
            found.append(number)
        }
        return found
    }

    /// A file's text read to its end (`/proc` files report a size of 0, which Foundation's
    /// readers take at its word).
    private static func contents(of path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(path)") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case let count = read(descriptor, &buffer, buffer.count), count > 0 {
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Descriptors (duplicates of `/dev/null`) held so that every number below `floor` is taken:
/// what the process opens next is numbered `floor` or more. Raises the soft `RLIMIT_NOFILE`
/// (up to 16,384, within the hard limit) so that the tests running beside this one still have
/// room: the whole suite in one process held up to 1,300 descriptors of its own.
private struct DescriptorBallast {
    let floor: Int32
    private var held: [Int32] = []
    private let devNull: Int32

    init(floor: Int32) throws {
        self.floor = floor
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw TestFailure("getrlimit failed") }
        let wanted = min(limit.rlim_max, 16_384)
        guard wanted >= rlim_t(floor) + 2_048 else {
            throw TestFailure("RLIMIT_NOFILE's hard limit \(limit.rlim_max) leaves no room for \(floor) more descriptors")
        }
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted
            guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw TestFailure("setrlimit failed") }
        }
        devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard devNull >= 0 else { throw TestFailure("cannot open /dev/null") }
    }

    /// Takes every free number below `floor` (again: other tests close descriptors meanwhile).
    mutating func fill() throws {
        while true {
            let descriptor = fcntl(devNull, F_DUPFD_CLOEXEC, 0)
            guard descriptor >= 0 else {
                throw TestFailure("dup failed after \(held.count) descriptors: \(String(cString: strerror(errno)))")
            }
            held.append(descriptor)
            if descriptor >= floor - 1 { return }
        }
    }

    mutating func close() {
        for descriptor in held + [devNull] { _ = Glibc.close(descriptor) }
        held = []
    }
}
