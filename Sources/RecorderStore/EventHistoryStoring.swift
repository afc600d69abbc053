import TelemetryCore

/// What the gateway needs of an event history store (docs/history.md): the derived events it
/// keeps, per device, for fleet monitoring. SQLite (``RecorderDatabase``: a table in the
/// recorder's file) and PostgreSQL (`PostgresEventHistoryStore`: a table partitioned by day)
/// keep the same promises:
/// - a row is stored once per (event time, event id): a replayed frame re-derives the same
///   event, which is not written twice;
/// - read back newest first by (event time, event id), a page at a time after a cursor;
/// - nothing older than the last pruning cut-off in any answer.
public protocol EventHistoryStoring: Sendable {
    /// Where the store is, for logs (a file path, or a URL without its password).
    var location: String { get }

    /// Stores rows, skipping those already stored.
    /// - Returns: how many rows were new.
    func insertEvents(_ rows: [EventHistoryRow]) async throws -> Int

    /// One page of a device's events with event time in `[from, to]`, newest first, strictly
    /// after `cursor` in that order (nil: from the newest), at most `limit`.
    /// - Parameter family: only this family; nil: every family.
    func events(of device: DeviceID, family: String?, from: Double, to: Double, after cursor: EventHistoryCursor?, limit: Int) async throws
        -> [EventHistoryRow]

    /// Removes the events older than `cutoff` (Unix epoch seconds) and keeps every later
    /// answer from showing any.
    /// - Returns: how many rows or partitions were removed (for the log).
    @discardableResult
    func pruneEvents(before cutoff: Double) async throws -> Int

    /// The store's own clock (Unix epoch seconds) when several processes share it: the
    /// `history.retention` cut-off is taken on it. Nil for a store only this process writes.
    func storeTime() async throws -> Double?

    /// Makes ready what inserts around `date` need before they come (PostgreSQL attaches the
    /// day's and the next day's partitions).
    func preparePartitions(around date: Double) async throws
}

extension EventHistoryStoring {
    /// Makes ready what inserts around `date` need before they come (PostgreSQL attaches the
    /// day's and the next day's partitions); nothing by default.
    public func preparePartitions(around date: Double) async throws {}
}
