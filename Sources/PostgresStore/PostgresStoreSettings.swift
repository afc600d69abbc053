/// Where the shared store is and how to log in: parsed from `store.url`
/// (`postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`), with the
/// password of `store.passwordFile` when the URL has none.
public struct PostgresStoreSettings: Sendable, Equatable {
    /// How the connection is encrypted (libpq's `sslmode` values the client supports).
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP (a loopback or private network).
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection.
        case require
    }

    /// The server's host name or address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The role logged in as.
    public var user: String
    /// The role's password; nil: none (trust or peer authentication).
    public var password: String?
    /// The database.
    public var database: String
    /// TLS use.
    public var tls: TLSMode

    /// Creates settings.
    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
    }

    /// The URL without its password, for logs.
    public var location: String { "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" }

    /// Parses a `postgres://` (or `postgresql://`) URL.
    /// - Returns: the settings, or a sentence saying what is wrong (without the password).
    public static func parse(_ url: String) -> Result<PostgresStoreSettings, PostgresStoreURLProblem> {
        let example = "postgres://user@host:5432/database"
        var rest = Substring(url)
        guard let scheme = ["postgres://", "postgresql://"].first(where: { rest.hasPrefix($0) }) else {
            return .failure(.init("must start with postgres://, e.g. \(example)"))
        }
        rest = rest.dropFirst(scheme.count)
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { return .failure(.init("names no database, e.g. \(example)")) }
        let database = String(rest[rest.index(after: slash)...])
        rest = rest[..<slash]
        guard let at = rest.lastIndex(of: "@") else { return .failure(.init("names no user, e.g. \(example)")) }
        let credentials = rest[..<at]
        var hostPort = rest[rest.index(after: at)...]
        var user = credentials
        var password: String?
        if let colon = credentials.firstIndex(of: ":") {
            user = credentials[..<colon]
            password = percentDecoded(credentials[credentials.index(after: colon)...])
        }
        var port = 5432
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") {
                guard let parsed = Int(after.dropFirst()), (1...65535).contains(parsed) else { return .failure(.init("has a bad port, e.g. \(example)")) }
                port = parsed
            }
            hostPort = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
        } else if let colon = hostPort.lastIndex(of: ":") {
            guard let parsed = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(parsed) else {
                return .failure(.init("has a bad port, e.g. \(example)"))
            }
            port = parsed
            hostPort = hostPort[..<colon]
        }
        guard !hostPort.isEmpty else { return .failure(.init("names no host, e.g. \(example)")) }
        guard let decodedUser = percentDecoded(user), !decodedUser.isEmpty else { return .failure(.init("names no user, e.g. \(example)")) }
        guard let decodedDatabase = percentDecoded(Substring(database)), !decodedDatabase.isEmpty, !decodedDatabase.contains("/") else {
            return .failure(.init("names no database, e.g. \(example)"))
        }
        var tls = TLSMode.prefer
        for parameter in query.split(separator: "&") where !parameter.isEmpty {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0] == "sslmode" else {
                return .failure(.init("has the unsupported parameter '\(pair[0])' (only sslmode=disable|prefer|require)"))
            }
            guard let mode = TLSMode(rawValue: String(pair[1])) else {
                return .failure(.init("has sslmode=\(pair[1]); supported: disable, prefer, require"))
            }
            tls = mode
        }
        return .success(
            PostgresStoreSettings(host: String(hostPort), port: port, user: decodedUser, password: password ?? nil, database: decodedDatabase, tls: tls))
    }

    /// `%XX` escapes decoded; nil when an escape is malformed or the result is not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex, utf8.index(after: first) != utf8.endIndex,
                    let value = UInt8(String(decoding: utf8[first...utf8.index(after: first)], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
                index = utf8.index(first, offsetBy: 2)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// Why a `store.url` is unusable; the caller adds the key.
public struct PostgresStoreURLProblem: Error, Sendable, Equatable {
    /// What is wrong, never quoting the password.
    public let message: String

    init(_ message: String) { self.message = message }
}
