import Ownership
import ServiceLifecycle

/// The last service of a stand-in's group (``AdoptionService``): it returns once the stand-in
/// holds the dead run's partitions and its subscriber, which resumed the dead run's broker
/// session, has its first subscription answered; its return stops the group gracefully, so
/// the ownership hands every partition over make-before-break while the session's queued frames
/// are processed, and the subscriber ends the session last.
struct StandInService: Service {
    let ownership: any OwnershipPort
    /// Ends once the subscriber's first subscription is answered.
    let subscribed: AsyncStream<Never>

    func run() async throws {
        await ownership.ready()
        for await _ in subscribed {}
    }
}
