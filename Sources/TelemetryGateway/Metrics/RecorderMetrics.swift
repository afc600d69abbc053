import CoreMetrics
import Metrics
import RecorderStore
import TelemetryCore

/// Metrics of the historical accelerometer store, its queries and the tremor results.
final class RecorderMetrics: Sendable {
    /// Samples stored (new).
    let samplesStored: Counter
    /// Samples skipped because already stored (same identifier and timestamp).
    let duplicateSamples: Counter
    /// Store attempts of chunks that failed (database errors); the chunk is held and retried.
    let storeFailures: Counter
    /// Attempts to store a held chunk again.
    let storeRetries: Counter
    /// Chunks held for a store write that failed, over all shards (their journal records too).
    let heldChunks: Meter
    /// Held chunks let go of beyond the held bytes' bound, their journal records kept for the next start.
    let chunksLeftInJournal: Counter
    /// Samples deleted for age.
    let samplesExpired: Counter
    /// Samples deleted because the store was over `recorder.maxSamples`.
    let samplesOverCapacity: Counter
    /// Samples held, over all devices.
    let storedSamples: Gauge
    /// Bytes of the database file and its WAL.
    let databaseBytes: Gauge
    /// Tremor results published for complete minutes.
    let tremorResults: Counter
    /// Queries by outcome (`answered`, an error code including the refusals on arrival, a
    /// reply-check code such as `noResponseTopic`, `publishFailed`, `dropped`).
    private let queries: DimensionedCounters
    /// Query requests waiting for the query task.
    let queryQueueDepth: Gauge
    private let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
        samplesStored = Counter(label: "gateway_recorder_samples_stored_total", factory: factory)
        duplicateSamples = Counter(label: "gateway_recorder_duplicate_samples_total", factory: factory)
        storeFailures = Counter(label: "gateway_recorder_store_failures_total", factory: factory)
        storeRetries = Counter(label: "gateway_recorder_store_retries_total", factory: factory)
        heldChunks = Meter(label: "gateway_recorder_chunks_held", factory: factory)
        chunksLeftInJournal = Counter(label: "gateway_recorder_chunks_left_in_journal_total", factory: factory)
        samplesExpired = Counter(label: "gateway_recorder_samples_pruned_total", dimensions: [("reason", "expired")], factory: factory)
        samplesOverCapacity = Counter(label: "gateway_recorder_samples_pruned_total", dimensions: [("reason", "overCapacity")], factory: factory)
        storedSamples = Gauge(label: "gateway_recorder_stored_samples", factory: factory)
        databaseBytes = Gauge(label: "gateway_recorder_database_bytes", factory: factory)
        tremorResults = Counter(label: "gateway_tremor_results_total", factory: factory)
        queries = DimensionedCounters(label: "gateway_recorder_queries_total", dimensions: ["outcome"], factory: factory)
        queryQueueDepth = Gauge(label: "gateway_recorder_query_queue_depth", factory: factory)
    }

    /// Counts a query by its outcome.
    func query(_ outcome: String) {
        queries(outcome).increment()
    }

    /// Records a store's size.
    func record(_ statistics: RecorderStatistics) {
        storedSamples.record(statistics.samples)
        databaseBytes.record(statistics.fileBytes)
    }
}
