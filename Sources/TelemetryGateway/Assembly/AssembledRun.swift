import Logging
import ServiceLifecycle
import UnixSignals

/// A run's parts and its services in start order (``GatewayHost/assembleRun(_:)``), for the
/// group that runs it: the process's own, or a stand-in's.
struct AssembledRun {
    let run: HostedRun
    let parts: GatewayParts
    /// The run's services; swift-service-lifecycle stops them in the reverse order.
    let services: [ServiceGroupConfiguration.ServiceConfiguration]
    /// Ends once the broker answered the run's first subscription.
    let subscribed: AsyncStream<Never>

    /// The group running `services` (the run's, with what its host adds around them).
    func group(_ services: [ServiceGroupConfiguration.ServiceConfiguration], shutdownSignals: [UnixSignal]) -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: shutdownSignals, logger: run.logger)
        // A service that does not end 2 s past the shutdown's bound is cancelled (the executable
        // ends itself at the bound; this also bounds a gateway run in-process, as the testing kit
        // does). The bound: 2 × pipeline.drainTimeout, after a clustered instance's hand-over (at
        // most one more).
        let settings = run.configuration
        let drainTimeouts = settings.cluster.isClustered ? 3.0 : 2.0
        configuration.maximumGracefulShutdownDuration = .seconds(drainTimeouts * settings.pipeline.drainTimeout + 2)
        return ServiceGroup(configuration: configuration)
    }
}
