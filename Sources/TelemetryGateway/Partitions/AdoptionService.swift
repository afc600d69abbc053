import CoreMetrics
import Foundation
import Locking
import Logging
import Ownership
import ServiceLifecycle

/// Adopts dead instances (clustered): at every heartbeat it asks the store to adopt one whose
/// row expired within the adoption window; when the store gives it one, it runs that
/// instance's stand-in in this process until it ends, beside others, up to
/// ``concurrentStandIns`` (several instances may die together, fewer survive). A stand-in is a
/// gateway run under the dead name that resumes its broker session, processes what the session
/// queued and hands every partition over make-before-break (docs/scale-out.md, *A death: the
/// adoption and the stand-in*). The store lets one instance adopt each dead one, so several
/// never split a session.
struct AdoptionService: Service {
    /// Stand-ins one process runs at once, each a gateway runtime of its own (two broker
    /// connections, a journal file); more dead instances wait for the next adopter, or for a
    /// stand-in here to end, within their adoption window.
    static let concurrentStandIns = 4

    /// Where the adoptions are decided.
    let store: any LeaseStoring
    /// This instance's name.
    let adopter: String
    /// Seconds between adoption attempts (the heartbeat).
    let interval: Double
    /// Seconds the store keeps an adoption before the stand-in's first heartbeat.
    let ttl: Double
    /// Seconds a stand-in may run before it is stopped: it has left long before in every run.
    let standInLimit: Double
    /// Builds the stand-in's service group for the adopted run under a new incarnation.
    let makeStandIn: @Sendable (_ dead: LeaseMember, _ incarnation: String) throws -> ServiceGroup
    /// Whether this instance may adopt now: not while it withholds its own renewals for want of
    /// the broker (its stand-in would not reach the broker either).
    let mayAdopt: @Sendable () -> Bool
    let metrics: OwnershipMetrics
    let clock: any GatewayClock
    let logger: Logger

    func run() async throws {
        let running = LockedState(Running())
        await withGracefulShutdownHandler {
            // Leaves once every stand-in it started has ended.
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled, !running.withLock({ $0.stopping }) {
                    if running.withLock({ $0.adopted < Self.concurrentStandIns }), let (dead, incarnation) = await adopt() {
                        // Counted from the adoption, not from the stand-in's start: the bound holds
                        // however late the child task runs.
                        running.withLock { $0.adopted += 1 }
                        group.addTask {
                            await runStandIn(of: dead, incarnation: incarnation, running)
                            running.withLock { $0.adopted -= 1 }
                        }
                    }
                    try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }
                }
            }
        } onGracefulShutdown: {
            // This process stops: the running stand-ins hand over what they can first.
            let groups = running.withLock { state in
                state.stopping = true
                return Array(state.standIns.values)
            }
            for group in groups { Task { await group.triggerGracefulShutdown() } }
        }
    }

    /// The stand-ins running now, by incarnation, the adoptions not ended yet (started or about
    /// to), and whether this process stops.
    private struct Running {
        var standIns: [String: ServiceGroup] = [:]
        var adopted = 0
        var stopping = false
    }

    /// One attempt: the dead run the store gave this instance, with its stand-in's incarnation.
    private func adopt() async -> (LeaseMember, String)? {
        guard mayAdopt() else { return nil }
        let incarnation = String(UUID().uuidString.prefix(8))
        do {
            guard let dead = try await store.adopt(by: adopter, standIn: incarnation, ttl: ttl) else { return nil }
            metrics.adoptions.increment()
            return (dead, incarnation)
        } catch {
            // The heartbeat logs the store's state; an adoption is only tried again.
            return nil
        }
    }

    /// Runs `dead`'s stand-in to its end.
    private func runStandIn(of dead: LeaseMember, incarnation: String, _ running: LockedState<Running>) async {
        let group: ServiceGroup
        do {
            group = try makeStandIn(dead, incarnation)
        } catch {
            logger.error("adoption: cannot start the stand-in of \(dead.name): \(error); its partitions are taken once the adoption lapses")
            return
        }
        logger.notice("adoption: \(dead.name) (run \(dead.incarnation)) is dead; its stand-in \(incarnation) resumes its session and hands its partitions over")
        let started = clock.monotonicNow()
        guard running.withLock({ state in
            guard !state.stopping else { return false }
            state.standIns[incarnation] = group
            return true
        }) else {
            // This process began to stop meanwhile: the stand-in does not start; the adoption
            // lapses after its time to live and the others take the partitions.
            return
        }
        // The stand-in ends itself once it has handed everything over; the limit, or this
        // process's shutdown, stops it gracefully (it hands over what it can first).
        let limit = Task {
            try await clock.sleep(for: standInLimit)
            logger.warning("adoption: the stand-in of \(dead.name) still runs after \(standInLimit) s; stopping it")
            await group.triggerGracefulShutdown()
        }
        do { try await group.run() } catch { logger.error("adoption: the stand-in of \(dead.name) ended with \(error)") }
        limit.cancel()
        running.withLock { $0.standIns[incarnation] = nil }
        logger.notice("adoption: the stand-in of \(dead.name) left after \(String(format: "%.1f", clock.secondsSince(started))) s")
    }
}
