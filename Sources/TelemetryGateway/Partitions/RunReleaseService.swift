import PostgresStore
import ServiceLifecycle

/// Lets go, when a stand-in's group stops, of what the run held in the process's shared parts:
/// its lease lane in the store client (``PostgresStoreClient/openLane(_:maximumConnections:)``)
/// and its gauges in the metrics registry. First in the group, so it is the last to stop, after
/// the run's last lease statement and last recorded level. The process's own run keeps both for
/// as long as the process runs.
struct RunReleaseService: Service {
    /// The store client and the run's lane in it, if it has one.
    let store: (client: PostgresStoreClient, lane: PostgresStoreLane)?
    let gauges: GaugeReleasingMetricsFactory?

    func run() async {
        try? await gracefulShutdown()
        if let store { store.client.closeLane(store.lane) }
        gauges?.release()
    }
}
