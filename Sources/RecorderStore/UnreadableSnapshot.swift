import Foundation
import TelemetryCore

/// A stored device snapshot that the store returned but that does not decode: another format, or
/// damaged. Unlike a store that does not answer (which a later read may get past), reading it
/// again returns the same bytes, so the device starts fresh.
public struct UnreadableSnapshot: Error, CustomStringConvertible {
    /// The device whose snapshot it is.
    public let device: DeviceID
    /// Why it does not decode.
    public let reason: String

    /// Decodes `data` as `device`'s snapshot, or throws this error naming why it could not.
    public static func decode(_ data: Data, of device: DeviceID) throws -> DeviceSnapshot {
        do {
            return try JSONDecoder().decode(DeviceSnapshot.self, from: data)
        } catch {
            throw UnreadableSnapshot(device: device, reason: "\(error)")
        }
    }

    public var description: String { "the stored snapshot of \(device) does not decode: \(reason)" }
}
