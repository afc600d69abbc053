/// A `host:port` the HTTP server binds; port 0 lets the kernel choose (tests).
public struct HTTPListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host or IP address, e.g. `127.0.0.1` or `0.0.0.0`.
    public var host: String
    /// The TCP port.
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` (`[v6]:port` for IPv6).
    /// - Returns: nil when the text is not host:port with a port from 0 to 65535.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: \.isWhitespace) else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
