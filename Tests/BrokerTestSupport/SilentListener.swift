
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that looks like a broker gone wrong, for connect-timeout tests. It never
/// accepts and never answers:
/// - ``Behaviour/completesHandshake``: the kernel completes TCP handshakes into the listen
///   backlog, so a client connects and then waits for a CONNACK that never comes;
/// - ``Behaviour/dropsSYNs``: `listen(0)` and one filler connection occupying the only backlog
///   slot, so the kernel drops every further SYN and a client's `connect()` waits for its SYN
///   retries (about two minutes), as a firewall that drops packets would make it.
public final class SilentListener: @unchecked Sendable {
    /// What the port does with a new connection.
    public enum Behaviour: Sendable {
        case completesHandshake
        case dropsSYNs
    }

    public let port: Int
    private let listener: Int32
    private var filler: Int32 = -1

    /// Opens the port on 127.0.0.1.
    public init(_ behaviour: Behaviour) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestFailure("silent listener: socket() failed") }
        var address = TestBroker.loopbackAddress(port: 0)
        let descriptor = listener
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let backlog: Int32 = behaviour == .dropsSYNs ? 0 : 16
        guard bound == 0, listen(descriptor, backlog) == 0 else { throw TestFailure("silent listener: bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        if behaviour == .dropsSYNs {
            // The one connection a backlog of 0 holds; from now on SYNs are dropped.
            filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var target = TestBroker.loopbackAddress(port: port)
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw TestFailure("silent listener: the filler connection failed") }
        }
    }

    deinit {
        if filler >= 0 { close(filler) }
        close(listener)
    }

    /// The URL to give a client.
    public var url: String { "mqtt://127.0.0.1:\(port)" }
}
