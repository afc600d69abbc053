import TelemetryCore

/// The devices a worker processes as their next owner warming up (partitioned mode): what the
/// processor derives for them (also from clock ticks: timeouts, session ends) is not published.
struct ShadowDevices: Sendable {
    private var devices: Set<String> = []
    private var prefix: String

    /// - Parameter outboundRoot: the root device topics are published under.
    init(outboundRoot: String) { prefix = outboundRoot + "/" }

    mutating func insert(_ device: DeviceID) { devices.insert(device.rawValue) }
    mutating func remove(_ device: DeviceID) { devices.remove(device.rawValue) }
    func contains(_ device: DeviceID) -> Bool { devices.contains(device.rawValue) }

    /// `messages` without those about shadowed devices (`{root}/{id}/…`).
    func visible(_ messages: [OutboundMessage]) -> [OutboundMessage] {
        guard !devices.isEmpty else { return messages }
        return messages.filter { message in
            guard message.topic.hasPrefix(prefix) else { return true }
            let rest = message.topic.utf8.dropFirst(prefix.utf8.count)
            let level = rest.split(separator: UInt8(ascii: "/"), maxSplits: 1, omittingEmptySubsequences: false).first ?? rest
            return !devices.contains(String(Substring(level)))
        }
    }
}
