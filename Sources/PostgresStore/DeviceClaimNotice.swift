import Foundation
import RecorderStore
import TelemetryCore

/// A claim as the store notifies it on its claim channel (schema migration 2): the device, the
/// new epoch and the claiming instance, as the JSON text `{"device": …, "epoch": …,
/// "instance": …}` (JSON, so instance names of any characters parse unambiguously). Also what
/// the owner check after a (re)connect reports for a device another instance owns.
public struct DeviceClaimNotice: Sendable, Equatable {
    /// The device claimed.
    public var device: DeviceID
    /// Who claimed it, under which epoch.
    public var owner: DeviceOwnership

    /// Creates a notice.
    public init(device: DeviceID, owner: DeviceOwnership) {
        self.device = device
        self.owner = owner
    }

    /// Parses a notification's payload; nil when it is not a claim (not JSON, a member missing
    /// or of another type, an invalid device id, an epoch below 1).
    public init?(payload: String) {
        struct Payload: Decodable {
            let device: String
            let epoch: Int64
            let instance: String
        }
        guard let decoded = try? JSONDecoder().decode(Payload.self, from: Data(payload.utf8)), decoded.epoch > 0,
            let device = DeviceID(decoded.device)
        else { return nil }
        self.init(device: device, owner: DeviceOwnership(instance: decoded.instance, epoch: decoded.epoch))
    }
}
