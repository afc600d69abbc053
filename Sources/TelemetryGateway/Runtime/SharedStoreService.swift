import Logging
import PostgresStore
import ServiceLifecycle

/// Runs the shared store's connection pools (`store.backend: postgres`: the process's one
/// client, its data pool and every run's lease lane) and watches the store:
/// every few seconds it checks that PostgreSQL answers with the schema up to date, so a store
/// that is down at start, or goes away later, shows at once in `/readyz` (503, naming
/// `store.url`) and in one rate-limited log line, even while no write is due. A failed check
/// replaces the connection pools (``PostgresStoreClient/reset()``). Listed early in
/// the service group, so it stops after the workers' last writes.
struct SharedStoreService: Service {
    let client: PostgresStoreClient
    let health: RuntimeHealth
    /// Where checks time out, the next one is waited for and failure logs are spaced.
    let clock: any GatewayClock
    let logger: Logger
    /// Seconds between checks.
    var interval = 2.0
    /// Seconds a check may take before the store counts as not answering.
    var checkDeadline = 3.0

    func run() async {
        let failureLog = RateLimitedLog(interval: 30, clock: clock)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask {
                var failing = false
                while !Task.isCancelled {
                    do {
                        try await withStoreDeadline(checkDeadline, clock: clock) { try await client.check() }
                        health.recordStore("store.url", error: nil, decidesReadiness: true)
                        if failing { logger.notice("store.url: PostgreSQL at \(client.location) answers again; held recorder writes are retried") }
                        failing = false
                    } catch {
                        health.recordStore("store.url", error: "\(error)", decidesReadiness: true)
                        // A fresh pool: calls stuck on the old one fail at once, and the new one
                        // connects as soon as the server is back.
                        client.reset()
                        if !failing || failureLog.shouldLog() {
                            logger.error(
                                "store.url: PostgreSQL at \(client.location) does not answer (\(String(describing: error))); frames keep flowing, recorder and snapshot writes are retried, /readyz is 503 until it answers"
                            )
                        }
                        failing = true
                    }
                    try? await clock.sleep(for: interval)
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}
