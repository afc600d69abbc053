/// The store's size, for metrics and logs.
public struct RecorderStatistics: Sendable, Equatable {
    /// Stored samples over all devices.
    public var samples: Int
    /// Devices with stored samples.
    public var devices: Int
    /// The database file plus its write-ahead log, bytes.
    public var fileBytes: Int

    /// Creates statistics.
    public init(samples: Int, devices: Int, fileBytes: Int) {
        self.samples = samples
        self.devices = devices
        self.fileBytes = fileBytes
    }
}
