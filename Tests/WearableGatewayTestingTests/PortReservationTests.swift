import Foundation
import Testing
import WearableGatewayTesting

#if canImport(Glibc)
import Glibc
#endif

/// A reserved port refuses connections and cannot be taken by a broker of another test until
/// it is released.
@Suite("Port reservations")
struct PortReservationTests {
    @Test("a reserved port refuses connections and cannot be bound by a listener (which sets SO_REUSEADDR, as mosquitto does) until it is released")
    func heldUntilReleased() throws {
        let reservation = try PortReservation()
        #expect(reservation.port > 0)
        #expect(!TestBroker.canConnect(port: reservation.port))
        let blocked = Self.listen(on: reservation.port)
        #expect(blocked.descriptor == nil && blocked.error == EADDRINUSE, "bind while reserved: errno \(blocked.error)")

        reservation.release()
        reservation.release()  // idempotent
        let listener = Self.listen(on: reservation.port)
        let descriptor = try #require(listener.descriptor, "bind after the release: errno \(listener.error)")
        defer { close(descriptor) }
        #expect(TestBroker.canConnect(port: reservation.port))
    }

    /// Binds and listens on a loopback port with `SO_REUSEADDR`; the descriptor, or the errno.
    private static func listen(on port: Int) -> (descriptor: Int32?, error: Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return (nil, errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = TestBroker.loopbackAddress(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 4) == 0 else {
            let error = errno
            close(fd)
            return (nil, error)
        }
        return (fd, 0)
    }
}
