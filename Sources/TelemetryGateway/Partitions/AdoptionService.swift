import CoreMetrics
import Foundation
import Locking
import Logging
import Ownership
import ServiceLifecycle

/// Adopts dead instances (clustered): at every heartbeat it asks the store to adopt one whose
/// row expired within the adoption window; when the store gives it one, it runs that
/// instance's stand-in in this process to its end, then asks again. The stand-in is a gateway
/// run under the dead name that resumes its broker session, processes what the session queued
/// and hands every partition over make-before-break (docs/scale-out.md, *A death: the adoption and the stand-in*).
/// The store lets one instance adopt each dead one, so several never split a session.
struct AdoptionService: Service {
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
    let metrics: OwnershipMetrics
    let clock: any GatewayClock
    let logger: Logger

    func run() async throws {
        let running = LockedState(Running())
        await withGracefulShutdownHandler {
            while !Task.isCancelled, !running.withLock({ $0.stopping }) {
                await adoptOnce(running)
                try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }
            }
        } onGracefulShutdown: {
            // This process stops: a running stand-in hands over what it can first.
            let group = running.withLock { state in
                state.stopping = true
                return state.standIn
            }
            if let group { Task { await group.triggerGracefulShutdown() } }
        }
    }

    /// The stand-in running now, and whether this process stops.
    private struct Running {
        var standIn: ServiceGroup?
        var stopping = false
    }

    /// One attempt; runs the stand-in to its end when the store gives this instance a dead one.
    private func adoptOnce(_ running: LockedState<Running>) async {
        guard !running.withLock({ $0.stopping }) else { return }
        let incarnation = String(UUID().uuidString.prefix(8))
        let dead: LeaseMember
        do {
            guard let adopted = try await store.adopt(by: adopter, standIn: incarnation, ttl: ttl) else { return }
            dead = adopted
        } catch {
            // The heartbeat logs the store's state; an adoption is only tried again.
            return
        }
        metrics.adoptions.increment()
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
            state.standIn = group
            return !state.stopping
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
        running.withLock { $0.standIn = nil }
        logger.notice("adoption: the stand-in of \(dead.name) left after \(String(format: "%.1f", clock.secondsSince(started))) s")
    }
}
