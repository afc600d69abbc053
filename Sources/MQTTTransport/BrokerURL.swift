/// Where the broker is: `mqtt://host:port` (plain TCP) or `mqtts://host:port` (TLS).
///
/// The port defaults to 1883 for `mqtt` and 8883 for `mqtts`. IPv6 literals go in brackets:
/// `mqtt://[::1]:1883`.
public struct BrokerURL: Sendable, Equatable, CustomStringConvertible {
    /// Host name or IP literal (without brackets).
    public var host: String
    /// TCP port.
    public var port: Int
    /// Whether the connection uses TLS (`mqtts`).
    public var usesTLS: Bool

    /// Creates a broker address directly.
    public init(host: String, port: Int, usesTLS: Bool = false) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// Parses `mqtt://host[:port]` or `mqtts://host[:port]`.
    /// - Throws: ``BrokerURL/ParseError`` naming what is wrong.
    public init(parsing text: String) throws(ParseError) {
        let scheme: String
        let rest: Substring
        if let separator = text.firstRange(of: "://") {
            scheme = String(text[..<separator.lowerBound]).lowercased()
            rest = text[separator.upperBound...]
        } else {
            throw ParseError("'\(text)' has no scheme; expected mqtt://HOST:PORT or mqtts://HOST:PORT")
        }
        switch scheme {
        case "mqtt", "tcp": usesTLS = false
        case "mqtts", "ssl", "tls": usesTLS = true
        default: throw ParseError("unsupported scheme '\(scheme)' in '\(text)'; use mqtt:// or mqtts://")
        }
        var authority = rest
        if let slash = authority.firstIndex(of: "/") {
            guard authority[slash...].allSatisfy({ $0 == "/" }) else {
                throw ParseError("'\(text)' has a path; a broker URL is only mqtt://HOST:PORT")
            }
            authority = authority[..<slash]
        }
        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ParseError("'\(text)' has an unclosed '[' in the host")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty {
                throw ParseError("unexpected '\(after)' after the host in '\(text)'")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        } else {
            hostPart = authority
        }
        guard !hostPart.isEmpty else { throw ParseError("'\(text)' has no host") }
        host = String(hostPart)
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else {
                throw ParseError("port '\(portPart)' in '\(text)' is not a number from 1 to 65535")
            }
            port = value
        } else {
            port = usesTLS ? 8883 : 1883
        }
    }

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }

    /// Why a broker URL could not be parsed.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A sentence naming the problem.
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
