/// Connections of one run's own in the process's ``PostgresStoreClient``, for its lease
/// statements: opened with ``PostgresStoreClient/openLane(_:maximumConnections:)``, given to
/// ``PostgresLeaseStore``.
public struct PostgresStoreLane: Sendable, Hashable {
    /// The run it belongs to.
    public let id: String
}
