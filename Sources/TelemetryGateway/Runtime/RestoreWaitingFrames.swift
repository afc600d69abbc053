import TelemetryCore

/// One shard's frames of devices whose stored state could not be read yet (the store did not
/// answer at the device's first frame): kept per device in arrival order until the restore goes
/// through, so the device neither starts fresh (losing its session for good) nor has a later
/// frame processed before an earlier one. Bounded in bytes; past the bound the caller gives up
/// on the restores and processes what waits.
struct RestoreWaitingFrames {
    /// The most payload and topic bytes that wait at once.
    let limitBytes: Int
    /// Waiting frames by device.
    private var frames: [DeviceID: [RoutedFrame]] = [:]
    /// Devices in the order their first frame began to wait.
    private(set) var devices: [DeviceID] = []
    /// Payload and topic bytes waiting.
    private(set) var bytes = 0

    init(limitBytes: Int) {
        self.limitBytes = limitBytes
    }

    /// Whether frames of `device` wait (a later one must wait behind them).
    func contains(_ device: DeviceID) -> Bool { frames[device] != nil }

    /// Whether `frame` still fits under the bound.
    func fits(_ frame: RoutedFrame) -> Bool { bytes + frame.bytes <= limitBytes }

    /// Adds a frame of `device` behind its others.
    mutating func append(_ frame: RoutedFrame, of device: DeviceID) {
        if frames[device] == nil { devices.append(device) }
        frames[device, default: []].append(frame)
        bytes += frame.bytes
    }

    /// Takes every waiting frame of `device`, in arrival order.
    mutating func take(_ device: DeviceID) -> [RoutedFrame] {
        guard let taken = frames.removeValue(forKey: device) else { return [] }
        devices.removeAll { $0 == device }
        bytes -= taken.reduce(0) { $0 + $1.bytes }
        return taken
    }
}
