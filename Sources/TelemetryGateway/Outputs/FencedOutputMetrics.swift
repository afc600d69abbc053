import CoreMetrics

/// The metrics of ``FencedOutputs``.
struct FencedOutputMetrics: Sendable {
    /// Outputs not published because this instance no longer held their partition under their epoch.
    let fenced: Counter
    /// Outputs not published because another holder (or this one, earlier) had recorded them.
    let duplicates: Counter
    /// Ledger statements the store did not answer (the batch is retried).
    let failures: Counter
    /// Warm-up outputs let go to keep within their bound.
    let warmedDropped: Counter
    /// Bytes of outputs waiting for the ledger.
    let queuedBytes: Gauge
    /// Hand-overs that waited for room.
    let waits: Counter

    init(factory: any MetricsFactory) {
        fenced = Counter(label: "gateway_cluster_outputs_withheld_total", dimensions: [("reason", "fenced")], factory: factory)
        duplicates = Counter(label: "gateway_cluster_outputs_withheld_total", dimensions: [("reason", "duplicate")], factory: factory)
        failures = Counter(label: "gateway_cluster_output_ledger_failures_total", factory: factory)
        warmedDropped = Counter(label: "gateway_cluster_warmup_outputs_dropped_total", factory: factory)
        queuedBytes = Gauge(label: "gateway_cluster_output_ledger_queued_bytes", factory: factory)
        waits = Counter(label: "gateway_cluster_output_ledger_waits_total", factory: factory)
    }
}
