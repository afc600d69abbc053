/// The tokens that open each HTTP route group; a group without tokens is open to anyone who
/// reaches the listener. Read from the `http.auth.*TokenFile` files when the configuration loads.
public struct HTTPAccessTokens: Sendable, Equatable {
    /// The tokens per group (several, so a token can be rotated without a gap).
    public private(set) var tokens: [HTTPRouteGroup: [[UInt8]]] = [:]

    /// No group protected.
    public init() {}

    /// Every group in `tokens` protected by those tokens.
    public init(_ tokens: [HTTPRouteGroup: [String]]) {
        self = tokens.reduce(HTTPAccessTokens()) { $0.adding($1.value, for: $1.key) }
    }

    /// These tokens and `list` for `group` (its earlier ones replaced); an empty list opens it.
    public func adding(_ list: [String], for group: HTTPRouteGroup) -> HTTPAccessTokens {
        var copy = self
        copy.tokens[group] = list.isEmpty ? nil : list.map { Array($0.utf8) }
        return copy
    }

    /// Whether `group` asks for a token.
    public func isProtected(_ group: HTTPRouteGroup) -> Bool { tokens[group] != nil }

    /// Whether `presented` opens `group`: always for an open group; otherwise when it equals
    /// one of the group's tokens. Every token is compared in full, in time that does not depend
    /// on where the bytes differ, so the answer's timing does not reveal a token's prefix.
    public func admits(_ presented: String?, to group: HTTPRouteGroup) -> Bool {
        guard let accepted = tokens[group] else { return true }
        guard let presented else { return false }
        let bytes = Array(presented.utf8)
        var match = false
        for token in accepted { match = Self.constantTimeEqual(bytes, token) || match }
        return match
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = 0
        let length = max(a.count, b.count)
        for index in 0..<length {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0 && a.count == b.count
    }
}
