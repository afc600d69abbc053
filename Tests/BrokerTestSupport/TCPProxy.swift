import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on loopback that the test controls: clients connect to ``port``, each connection
/// is relayed to `127.0.0.1:upstreamPort`, and ``cut()`` drops every relayed connection at once
/// (both sides see the socket close), as a network failure between gateway and broker would.
/// New connections are accepted again right away, or after an outage (``cut(refusingFor:)``).
public final class TCPProxy: @unchecked Sendable {
    public let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    /// The relayed sockets, whether ``stop()`` ran, and until when new connections are closed at once.
    private let state = LockedState((sockets: Set<Int32>(), stopped: false, refusingUntil: ContinuousClock.Instant?.none))

    /// Starts listening on a free loopback port.
    public init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestFailure("proxy: socket() failed") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let descriptor = listener
        var address = TestBroker.loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else { throw TestFailure("proxy: bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "tcp-proxy-accept"
        thread.start()
    }

    deinit {
        stop()
    }

    /// The URL to give clients instead of the broker's.
    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Drops every connection being relayed now.
    public func cut() {
        let open = state.withLock { $0.sockets }
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Drops every connection being relayed now, and closes every new one at once for
    /// `seconds` (a network outage: the clients' reconnects fail until it is over).
    public func cut(refusingFor seconds: Double) {
        state.withLock { $0.refusingUntil = .now + .milliseconds(Int(seconds * 1000)) }
        cut()
    }

    /// Stops accepting and drops everything.
    public func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        cut()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if state.withLock({ $0.stopped }) { return }
                continue
            }
            if let until = state.withLock({ $0.refusingUntil }), ContinuousClock.now < until {
                close(client)
                continue
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = TestBroker.loopbackAddress(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            state.withLock { $0.sockets.formUnion([client, upstream]) }
            let thread = Thread { [self] in relay(client, upstream) }
            thread.name = "tcp-proxy-relay"
            thread.start()
        }
    }

    /// Copies bytes both ways until either side closes (or ``cut()`` shuts them down).
    private func relay(_ first: Int32, _ second: Int32) {
        var descriptors = [pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65536)
        relaying: while true {
            guard poll(&descriptors, 2, 1000) >= 0 else { break }
            for index in 0..<2 where descriptors[index].revents != 0 {
                let from = descriptors[index].fd
                let to = descriptors[1 - index].fd
                let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                if count <= 0 { break relaying }
                var written = 0
                while written < count {
                    let result = buffer.withUnsafeBytes { write(to, $0.baseAddress! + written, count - written) }
                    if result <= 0 { break relaying }
                    written += result
                }
            }
        }
        state.withLock { $0.sockets.subtract([first, second]) }
        shutdown(first, Int32(SHUT_RDWR))
        shutdown(second, Int32(SHUT_RDWR))
        close(first)
        close(second)
    }
}
