extension TopicScheme {
    /// Every instance's announcement, e.g. `gateway/instances/+`.
    public var instancesFilter: String { instancesPrefix + "+" }

    /// `filter` as a shared subscription of `group`, e.g. `$share/gateways/wearables/+/#`: the
    /// broker hands each matching message to one member of the group.
    /// - Parameters:
    ///   - filter: the filter, e.g. ``inboundFilter``.
    ///   - group: the share group (`cluster.group`).
    /// - Returns: the shared filter.
    public static func sharedFilter(_ filter: String, group: String) -> String { "$share/" + group + "/" + filter }

    /// The discovery streams every partitioned instance subscribes, e.g. `wearables/+/hello`
    /// (retained: the fleet at start) and `wearables/+/status`; a device's other streams reach
    /// only its owner, through ``deviceInboundFilter(rawDevice:)``.
    public var discoveryFilters: [String] { [inboundRoot + "/+/" + InboundStream.hello.rawValue, inboundRoot + "/+/" + InboundStream.status.rawValue] }

    /// Whether `stream` is one of the discovery streams (``discoveryFilters``).
    public static func isDiscovery(_ stream: InboundStream) -> Bool { stream == .hello || stream == .status }

    /// One device's inbound streams, e.g. `wearables/watch-1/#` (its owner's subscription).
    public func deviceInboundFilter(rawDevice device: some StringProtocol) -> String { inboundRoot + "/" + device + "/#" }

    /// The device level of a ``deviceInboundFilter(rawDevice:)``; nil for any other filter.
    public func device(ofInboundFilter filter: String) -> Substring? {
        guard filter.hasPrefix(inboundRoot + "/"), filter.hasSuffix("/#") else { return nil }
        let device = filter.dropFirst(inboundRoot.utf8.count + 1).dropLast(2)
        return device.isEmpty || device.contains("/") || device == "+" ? nil : device
    }

    /// The prefix of the instances' announcements, e.g. `gateway/instances/`.
    var instancesPrefix: String { outboundRoot + "/instances/" }
}
