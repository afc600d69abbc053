/// The gateway's topic layout: parses inbound topics and builds outbound ones.
///
/// Devices publish below the inbound root (`wearables/{id}/<stream>`); the gateway publishes below
/// the outbound root (`gateway/...`). Roots may have several levels (`acme/wearables`). Topics are
/// compared byte for byte, as MQTT brokers do, never with Unicode equivalence.
public struct TopicScheme: Sendable, Equatable {
    /// The inbound root when none is configured: `wearables`, the one place it is spelled.
    public static let defaultInboundRoot = "wearables"
    /// The outbound root when none is configured: `gateway`, the one place it is spelled.
    public static let defaultOutboundRoot = "gateway"

    /// The root devices publish below, e.g. `wearables`.
    public let inboundRoot: String
    /// The root the gateway publishes below, e.g. `gateway`.
    public let outboundRoot: String

    /// Creates a scheme.
    ///
    /// The roots are not checked here; when they come from configuration, check them first with
    /// ``configurationProblem`` (or ``validateRoot(_:)``), since a bad root makes every topic unusable.
    /// - Parameters:
    ///   - inboundRoot: the root devices publish below.
    ///   - outboundRoot: the root the gateway publishes below.
    public init(inboundRoot: String = defaultInboundRoot, outboundRoot: String = defaultOutboundRoot) {
        self.inboundRoot = inboundRoot
        self.outboundRoot = outboundRoot
    }

    // MARK: Validation

    /// Says why `root` cannot be a topic root.
    ///
    /// A root is non-empty, has no `+`, `#` or NUL, no leading or trailing `/`, no empty level
    /// (`a//b`), and does not start with `$` (MQTT reserves those topics for the broker).
    /// - Parameter root: the candidate root, e.g. `acme/wearables`.
    /// - Returns: nil when the root is fine, else a human-readable reason.
    public static func validateRoot(_ root: String) -> String? {
        if root.isEmpty { return "topic root is empty" }
        for (offset, scalar) in root.unicodeScalars.enumerated() {
            switch scalar {
            case "+", "#": return "topic root '\(root)' contains the wildcard '\(scalar)' at position \(offset + 1)"
            case "\0": return "topic root contains NUL at position \(offset + 1)"
            default: continue
            }
        }
        if root.utf8.first == UInt8(ascii: "$") { return "topic root '\(root)' starts with '$', which MQTT reserves for broker topics" }
        if root.utf8.first == slash { return "topic root '\(root)' starts with '/'" }
        if root.utf8.last == slash { return "topic root '\(root)' ends with '/'" }
        var previous: UInt8 = 0
        for byte in root.utf8 {
            if byte == slash && previous == slash { return "topic root '\(root)' has an empty level ('//')" }
            previous = byte
        }
        return nil
    }

    /// Says why this scheme cannot be used: a bad root, or roots that overlap.
    ///
    /// Overlapping roots (equal, or one a level prefix of the other) would make the gateway receive
    /// its own output through ``inboundFilter`` and treat it as device frames.
    /// - Returns: nil when the scheme is usable, else a human-readable reason.
    public var configurationProblem: String? {
        if let problem = Self.validateRoot(inboundRoot) { return "inbound root: \(problem)" }
        if let problem = Self.validateRoot(outboundRoot) { return "outbound root: \(problem)" }
        if Self.isLevelPrefix(inboundRoot, of: outboundRoot) || Self.isLevelPrefix(outboundRoot, of: inboundRoot) {
            return "inbound root '\(inboundRoot)' and outbound root '\(outboundRoot)' overlap; the gateway would receive its own messages"
        }
        return nil
    }

    // MARK: Inbound

    /// The subscription filter that matches every device stream, e.g. `wearables/+/#`.
    public var inboundFilter: String { inboundRoot + "/+/#" }

    /// Everything below the inbound root, e.g. `wearables/#`, also topics that name no device
    /// stream (a capture records what devices sent, right or wrong).
    public var inboundRootFilter: String { inboundRoot + "/#" }

    /// The inbound topic a device publishes `stream` on, e.g. `wearables/watch-1/status`.
    /// - Parameters:
    ///   - id: the device.
    ///   - stream: the stream.
    /// - Returns: the topic.
    public func inboundTopic(_ id: DeviceID, _ stream: InboundStream) -> String {
        inboundTopic(rawDevice: id.rawValue, path: stream.rawValue)
    }

    /// An inbound topic from unchecked levels, for simulators and tests that also publish ids or
    /// streams the gateway must reject, e.g. `wearables/watch 1/gyro`.
    /// - Parameters:
    ///   - device: the device level, used as it is.
    ///   - path: the levels below it, used as they are.
    /// - Returns: the topic.
    public func inboundTopic(rawDevice device: some StringProtocol, path: some StringProtocol) -> String {
        inboundRoot + "/" + device + "/" + path
    }

    /// Parses an inbound topic into a device id and a stream.
    ///
    /// Checks, in order: the topic is below the inbound root (else ``GatewayErrorCode/invalidTopic``), the
    /// id level is a valid ``DeviceID`` (else ``GatewayErrorCode/invalidDeviceId``), and the rest is exactly a
    /// contract stream path (else ``GatewayErrorCode/unknownStream``, also when no stream follows the id).
    /// - Parameter topic: the topic of a received message.
    /// - Returns: the device and stream, or why the topic was rejected.
    public func parseInbound(_ topic: String) -> InboundTopic {
        // Nearly every topic is valid: accepted from its bytes in one pass. Anything else takes
        // the level-by-level checks, which say what is wrong.
        if let accepted = topic.utf8.withContiguousStorageIfAvailable({ acceptInbound($0) }), let accepted { return accepted }
        return checkInbound(topic)
    }

    /// ``parseInbound(_:)`` level by level: finds the root, then checks the id, then the stream
    /// path, and says what is wrong with the first that fails.
    func checkInbound(_ topic: String) -> InboundTopic {
        guard let idLevel = Self.routingKey(of: topic, inboundRoot: inboundRoot) else {
            return .invalid(TopicRejection(code: .invalidTopic, detail: "topic is not below the inbound root '\(inboundRoot)/'"))
        }
        guard let id = DeviceID(idLevel) else {
            return .invalid(TopicRejection(code: .invalidDeviceId, detail: DeviceID.validationProblem(idLevel) ?? "device id is invalid"))
        }
        let utf8 = topic.utf8
        guard idLevel.utf8.endIndex < utf8.endIndex else {
            return .invalid(TopicRejection(code: .unknownStream, detail: "topic has no stream below the device id"))
        }
        let pathStart = utf8.index(after: idLevel.utf8.endIndex)  // skip the '/'
        let path = Substring(topic.unicodeScalars[pathStart...])
        if path.isEmpty {
            return .invalid(TopicRejection(code: .unknownStream, detail: "topic has an empty stream path below the device id"))
        }
        guard let stream = InboundStream(path: path) else {
            return .invalid(TopicRejection(code: .unknownStream, detail: "unknown stream '\(Self.bounded(path))'; it is not in the wire contract"))
        }
        return .device(id, stream)
    }

    /// The device and stream of a valid inbound topic, from its UTF-8 bytes; nil for any topic
    /// ``parseInbound(_:)`` would reject (its checks then find out why).
    private func acceptInbound(_ topic: UnsafeBufferPointer<UInt8>) -> InboundTopic? {
        let idStart: Int? = inboundRoot.utf8.withContiguousStorageIfAvailable { root in
            guard topic.count > root.count, topic[root.count] == slash,
                UnsafeBufferPointer(rebasing: topic[..<root.count]).elementsEqual(root)
            else { return nil }
            return root.count + 1
        } ?? nil
        guard let idStart else { return nil }
        var idEnd = idStart
        while idEnd < topic.count, DeviceID.isAllowed(topic[idEnd]) { idEnd += 1 }
        // The id ends at a '/' with a stream path after it; any other byte makes it invalid.
        guard idEnd > idStart, idEnd - idStart <= DeviceID.maxLength, idEnd + 1 < topic.count, topic[idEnd] == slash,
            let stream = InboundStream.stream(pathBytes: UnsafeBufferPointer(rebasing: topic[(idEnd + 1)...]))
        else { return nil }
        return .device(DeviceID(validated: UnsafeBufferPointer(rebasing: topic[idStart..<idEnd])), stream)
    }

    /// Finds the raw device id level of an inbound topic, without validating it, for shard routing.
    ///
    /// Runs for every message inside the MQTT client's C callback, so it only walks UTF-8 bytes
    /// and returns a slice of `topic` (no allocation).
    /// - Parameters:
    ///   - topic: the topic of a received message.
    ///   - inboundRoot: the inbound root, e.g. `wearables` or `acme/wearables`.
    /// - Returns: the level right below the root (possibly empty), or nil when the topic is not below the root.
    public static func routingKey(of topic: String, inboundRoot: String) -> Substring? {
        let utf8 = topic.utf8
        var index = utf8.startIndex
        for byte in inboundRoot.utf8 {
            guard index < utf8.endIndex, utf8[index] == byte else { return nil }
            utf8.formIndex(after: &index)
        }
        guard index < utf8.endIndex, utf8[index] == slash else { return nil }
        utf8.formIndex(after: &index)
        let start = index
        while index < utf8.endIndex, utf8[index] != slash { utf8.formIndex(after: &index) }
        // Slicing the scalar view keeps the exact byte bounds; String slicing would round to grapheme
        // boundaries (a combining mark right after '/' joins the slash's grapheme).
        return Substring(topic.unicodeScalars[start..<index])
    }

    // MARK: Outbound

    /// Everything the gateway publishes below its root, e.g. `gateway/#`.
    public var outboundRootFilter: String { outboundRoot + "/#" }

    /// The device's retained presence topic, e.g. `gateway/watch-1/connection`.
    /// - Parameter id: the device.
    /// - Returns: the topic.
    public func connectionTopic(_ id: DeviceID) -> String { deviceTopic(id, .connection) }

    /// Where the device's rejected frames are reported, e.g. `gateway/watch-1/errors`.
    /// - Parameter id: the device.
    /// - Returns: the topic.
    public func deviceErrorsTopic(_ id: DeviceID) -> String { deviceTopic(id, .errors) }

    /// The device's retained availability topic, e.g. `gateway/watch-1/availability`.
    /// - Parameter id: the device.
    /// - Returns: the topic.
    public func availabilityTopic(_ id: DeviceID) -> String { deviceTopic(id, .availability) }

    // MARK: Helpers

    /// Whether `prefix` equals `root` or is a whole-level prefix of it (`a` of `a/b`, not of `ab`).
    private static func isLevelPrefix(_ prefix: String, of root: String) -> Bool {
        guard root.utf8.starts(with: prefix.utf8) else { return false }
        let rest = root.utf8.dropFirst(prefix.utf8.count)
        return rest.isEmpty || rest.first == slash
    }

    /// Bounds attacker-controlled text quoted in a detail (topics may be 64 KiB).
    static func bounded(_ text: some StringProtocol, maxScalars: Int = 128) -> String {
        let scalars = text.unicodeScalars
        // Stops counting at the limit instead of walking a long text to the end.
        guard let cut = scalars.index(scalars.startIndex, offsetBy: maxScalars, limitedBy: scalars.endIndex),
            cut < scalars.endIndex
        else { return String(text) }
        var result = String(String.UnicodeScalarView(scalars[..<cut]))
        result += "…"
        return result
    }
}

private let slash = UInt8(ascii: "/")
