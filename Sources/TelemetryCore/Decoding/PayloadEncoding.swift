/// How a payload is encoded, chosen by the MQTT 5 content type.
public enum PayloadEncoding: Sendable, Equatable, CaseIterable {
    /// The wire contract's JSON (the default: no content type, or `application/json` with at most
    /// `charset=utf-8`).
    case json
    /// The compact binary encoding of the high-rate streams, `application/x-protobuf`.
    case protobuf

    /// The media type that selects the encoding.
    public var mediaType: String {
        switch self {
        case .json: "application/json"
        case .protobuf: "application/x-protobuf"
        }
    }

    /// The encoding an MQTT 5 content type selects.
    ///
    /// Media types and charset names compare case-insensitively and spaces around them are ignored.
    /// JSON allows one parameter, `charset=utf-8` (optionally quoted); protobuf allows none.
    /// - Parameter contentType: the frame's content type; nil (none sent) means JSON.
    /// - Returns: nil when the content type selects no supported encoding.
    public init?(contentType: String?) {
        guard let contentType else {
            self = .json
            return
        }
        // A bare media type as encoders send it, compared as is: the general parse below splits
        // and lowercases, which cost 2 % of the gateway's CPU at full protobuf load.
        if let exact = Self.allCases.first(where: { $0.mediaType == contentType }) {
            self = exact
            return
        }
        var parts = contentType.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let mediaType = parts.popFirst().map({ Self.trimmed($0).lowercased() }),
            let encoding = Self.allCases.first(where: { $0.mediaType == mediaType })
        else { return nil }
        for parameter in parts {
            guard encoding == .json, let equals = parameter.firstIndex(of: "=") else { return nil }
            let name = Self.trimmed(parameter[..<equals]).lowercased()
            var value = Self.trimmed(parameter[parameter.index(after: equals)...])
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            guard name == "charset", value.lowercased() == "utf-8" else { return nil }
        }
        self = encoding
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[first...last]
    }
}
