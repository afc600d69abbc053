import TelemetryCore

/// The devices a worker processes as their next owner warming up (partitioned mode): what the
/// processor derives for them (also from clock ticks: timeouts, session ends) is not published.
struct ShadowDevices: Sendable {
    private var devices: Set<DeviceID> = []

    mutating func insert(_ device: DeviceID) { devices.insert(device) }
    mutating func remove(_ device: DeviceID) { devices.remove(device) }
    func contains(_ device: DeviceID) -> Bool { devices.contains(device) }

    /// `messages` without those about shadowed devices (the device a message names, not its topic).
    func visible(_ messages: [OutboundMessage]) -> [OutboundMessage] {
        guard !devices.isEmpty else { return messages }
        return messages.filter { message in message.device.map { !devices.contains($0) } ?? true }
    }
}
