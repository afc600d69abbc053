import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port held bound but not listening, so that connecting to it is refused and nobody
/// else can take it until ``release()``.
///
/// ``TestBroker/freePort()`` only names a port that was free a moment ago: a test that lets a
/// client fail against "no broker" for a while can meet a broker of a test running in parallel
/// that was given the same port. Holding the port bound closes that window: the kernel gives it
/// to no other `bind` (no `SO_REUSEADDR` here) and to no outgoing connection, and a connection
/// to it is refused because nothing listens.
/// Owned by the test that made it (not `Sendable`: ``release()`` is not synchronised).
public final class PortReservation {
    /// The reserved port.
    public let port: Int
    private var descriptor: Int32

    /// Binds a free loopback port chosen by the kernel.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed: \(String(cString: strerror(errno)))") }
        var address = TestBroker.loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw TestFailure("bind() failed: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Lets the port go, for a broker to listen on it right away. Idempotent.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
