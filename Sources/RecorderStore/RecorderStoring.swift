import TelemetryCore

/// What the gateway needs of a historical accelerometer store (docs/recorder.md): the seam
/// between the recorder runtime and its backend, SQLite (``RecorderDatabase``, one file per
/// instance) or PostgreSQL (`PostgresRecorderStore`, shared by every instance).
///
/// Every backend gives the same answers (one conformance suite runs against each):
/// - samples de-duplicated by (device, identifier, timestamp);
/// - read back by (startDate, identifier, timestamp), a page at a time after a cursor;
/// - nothing older than the last pruning cut-off in any answer.
public protocol RecorderStoring: Sendable {
    /// Where the store is, for logs (a file path, or a URL without its password).
    var location: String { get }

    /// Stores a chunk's samples, skipping those already stored.
    /// - Returns: how many samples were new and how many were already stored.
    func insert(_ chunk: RecordedAccelerometerChunk, device: DeviceID) async throws -> RecorderInsertOutcome

    /// Persists the first minute whose tremor result is not published yet.
    func setNextTremorMinute(_ minute: Double, device: DeviceID) async throws

    /// The store's own clock (Unix epoch seconds) when several processes share it: retention
    /// cut-offs are taken on it, so one instance's wrong clock cannot prune history for all. Nil
    /// for a store only this process writes (its clock is the gateway's).
    func storeTime() async throws -> Double?

    /// Removes samples recorded before `cutoff` (Unix epoch seconds), then the oldest samples of
    /// the fullest devices while more than `maximumSamples` are stored.
    /// - Returns: how many samples were removed for age and for the cap.
    func prune(before cutoff: Double, maximumSamples: Int) async throws -> RecorderPruneOutcome

    /// One page of a device's samples in `[from, to]` after `cursor` (nil: from the start), at
    /// most `limit`, in (startDate, identifier, timestamp) order.
    func samples(of device: DeviceID, from: Double, to: Double, after cursor: StoredRecorderSample?, limit: Int) async throws
        -> [StoredRecorderSample]

    /// A device's samples in `[from, end)` (one minute for the tremor analysis), in order.
    func samples(of device: DeviceID, from: Double, before end: Double) async throws -> [RecordedAccelerometerSample]

    /// The starts of the minutes in `[from, end)` holding at least one sample of the device.
    func minutesWithData(of device: DeviceID, from: Double, before end: Double) async throws -> [Double]

    /// What the store remembers of a device: its newest sample date and the next tremor minute.
    func deviceState(of device: DeviceID) async throws -> RecorderDeviceState?

    /// The number of stored samples and devices, and the bytes the store takes.
    func statistics() async throws -> RecorderStatistics
}

extension RecorderStoring {
    /// A store of this process alone has no clock of its own.
    public func storeTime() async throws -> Double? { nil }
}
