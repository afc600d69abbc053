import CoreMetrics
import Foundation
import Locking
import Logging
import PostgresStore
import ServiceLifecycle
import TelemetryCore

/// Clustered modes on the shared store (`store.backend: postgres`): tells this instance at once
/// when another one claims a device it holds (docs/scale-out.md, *Fencing*). It keeps one
/// connection of its own LISTENing to the store's claim notifications and hands each claim to
/// the device's shard worker as a control item, in order with the device's frames; the worker
/// decides (``DeviceClaims/verdict(on:claimedBy:)``) and fences the device like a refused write.
///
/// Notifications sent while the connection is away are lost, so after every (re)connect it asks
/// the store once, in one query, who owns each device this instance holds claimed, and hands on
/// every other owner like a notification. The connection is made again with a growing pause
/// (0.25 s doubling up to 5 s) while it fails; one log line per outage
/// (`gateway_cluster_claim_listener_outages_total`). A connection that stops answering without
/// being closed is closed by the listener's probe (`SELECT 1` every 5 s, 3 s to answer). The
/// fenced snapshot write stays the backstop.
struct ClaimNoticeService: Service {
    let listener: PostgresClaimListener
    /// This instance's name.
    let instance: String
    /// The devices this instance holds claimed (every shard's).
    let claimed: ClaimedDevices
    let queues: [HandoffQueue<WorkItem>]
    let metrics: DeviceStateMetrics
    let logger: Logger
    /// Fault injection for the integration test's control run (`WG_FAULT_CLAIM_NOTIFY_OFF=1`):
    /// nothing is listened to, so only the fenced writes fence.
    var listens = ProcessInfo.processInfo.environment["WG_FAULT_CLAIM_NOTIFY_OFF"] != "1"
    /// The longest pause between connection attempts, in seconds.
    var maximumBackoff = 5.0

    func run() async {
        guard listens else {
            logger.warning("WG_FAULT_CLAIM_NOTIFY_OFF=1: not listening to the store's claim notifications; fencing acts at snapshot writes only")
            try? await gracefulShutdown()
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await listen() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    /// Sessions, one after the other, until cancelled.
    private func listen() async {
        let router = ShardRouter(shardCount: queues.count)
        // Failed attempts of the current outage (nil: none), whether the latest session got as far
        // as LISTEN, and whether any did.
        let state = LockedState<(failures: Int?, listened: Bool, started: Bool)>((nil, false, false))
        var backoff = 0.25
        while !Task.isCancelled {
            state.withLock { $0.listened = false }
            do {
                try await listener.session(instance: instance, claimed: { claimed.all }) { event in
                    switch event {
                    case .listening:
                        let (failures, first) = state.withLock { state in
                            defer { state = (nil, true, true) }
                            return (state.failures, !state.started)
                        }
                        if let failures {
                            logger.notice(
                                "store.url: listening to claim notifications at \(listener.location) again after \(failures) failed attempts; the owners of this instance's claimed devices are checked")
                        } else if first {
                            logger.info("store.url: listening to claim notifications (\(PostgresClaimListener.channel)) at \(listener.location)")
                        }
                    case .claim(let notice, let checked):
                        (checked ? metrics.claimNoticesChecked : metrics.claimNotices).increment()
                        queues[router.shard(forRoutingKey: notice.device.rawValue)].pushControl(.claimNotice(notice.device, notice.owner))
                    case .malformed(let payload):
                        metrics.claimNoticesMalformed.increment()
                        logger.warning("store.url: a notification on the claim channel is not a claim, ignored: \(payload.prefix(200)) (gateway_cluster_claim_notices_malformed_total)")
                    }
                }
            } catch {
                if Task.isCancelled { return }
                let first = state.withLock { state in
                    defer { state.failures = (state.failures ?? 0) + 1 }
                    return state.failures == nil
                }
                if first {
                    metrics.claimListenerOutages.increment()
                    logger.error(
                        "store.url: the connection listening to claim notifications at \(listener.location) failed: \(error); reconnecting, claims made meanwhile are found by an owner check once it is back, fenced snapshot writes still fence (gateway_cluster_claim_listener_outages_total)"
                    )
                }
            }
            // A connection that was up and went away is made again after the shortest pause; failing attempts back off.
            if state.withLock({ $0.listened }) { backoff = 0.25 }
            try? await Task.sleep(for: .seconds(backoff))
            backoff = min(backoff * 2, maximumBackoff)
        }
    }
}
