import CoreMetrics

/// Metrics of the event history's writer (docs/history.md, docs/operations.md).
final class HistoryMetrics: Sendable {
    /// Rows new to the store.
    let rowsWritten: Counter
    /// Rows the store held already (a replayed frame's events).
    let duplicateRows: Counter
    /// Events dropped: refused by the full buffer, or left when the store failed at shutdown.
    let dropped: Counter
    /// Bytes of events waiting for the store.
    let bufferedBytes: Gauge
    /// Writes of a batch that failed (retried with backoff).
    let writeFailures: Counter
    /// Partitions (PostgreSQL) or rows (SQLite) removed for `history.retention`.
    let pruned: Counter

    init(factory: any MetricsFactory) {
        rowsWritten = Counter(label: "gateway_history_rows_written_total", factory: factory)
        duplicateRows = Counter(label: "gateway_history_duplicate_rows_total", factory: factory)
        dropped = Counter(label: "gateway_history_dropped_total", factory: factory)
        bufferedBytes = Gauge(label: "gateway_history_buffered_bytes", factory: factory)
        writeFailures = Counter(label: "gateway_history_write_failures_total", factory: factory)
        pruned = Counter(label: "gateway_history_pruned_total", factory: factory)
    }
}
