import Logging
import Metrics
import Ownership
import TelemetryCore

/// One run a gateway process hosts: the instance the process was started as, or a stand-in that
/// finishes a dead instance's work under that instance's name (docs/scale-out.md, *A death: the
/// adoption and the stand-in*). A run is a value: everything the two kinds differ by is here,
/// and the assembly (``GatewayHost/assembleRun(_:)``) reads it without asking which kind it
/// builds.
struct HostedRun: Sendable {
    /// Its configuration, the instance's paths and client ids resolved.
    let configuration: GatewayConfiguration
    /// This run's registration in the shared store (clustered): every run of a name has its own.
    let incarnation: String
    /// The instance whose adoption this run works under (a stand-in), or nil.
    let adoptedBy: String?
    /// Where the run's logs go (a stand-in's carry `standInOf`).
    let logger: Logger
    /// Where its metrics are recorded: the process's registry, its series labelled by the run
    /// (`gateway_instance`, clustered; and `gateway_stand_in`, a stand-in's).
    let metricsFactory: any MetricsFactory
    /// Where the process's registry is published (`gateway/metrics`, or clustered
    /// `gateway/instances/{name}/metrics`), with the process's own samples (CPU, memory); nil for
    /// a stand-in, whose series the process publishes with its own.
    let metricsTopic: TopicScheme.GatewayTopic?
    /// A stand-in's gauges, taken out of the registry when it ends; nil for the process's run.
    let releasableGauges: GaugeReleasingMetricsFactory?
    /// Appended to the publisher's client id: a stand-in resumes only the dead run's subscriber
    /// session; its publisher has an id of its own, so it never knocks off the publisher of an
    /// instance taken for dead but alive.
    let publisherClientIDSuffix: String
    /// Whether it continues the journal on its disk: replays it, records itself beside it (so a
    /// restart knows this run is over) and removes the journals its earlier stand-ins left. A
    /// stand-in's journal is its own and starts empty: what an earlier stand-in of the name held
    /// is in that name's broker session.
    let continuesJournal: Bool
    /// The topic of the mark that tells the run its resumed session's backlog was delivered; its
    /// arrival ends the run (``StandInService``). Nil: the run ends only when the process stops.
    let backlogMark: String?
    /// Filled during shutdown with what could not be drained.
    let shutdownReport: ShutdownReport
    /// End the process if shutdown overruns its bound (the executable's own run only).
    let exitOnShutdownOverrun: Bool

    /// The run the process was started as: `configuration` as given, its paths the instance's.
    static func primary(
        configuration: GatewayConfiguration, logger: Logger, metricsFactory: any MetricsFactory, shutdownReport: ShutdownReport,
        exitOnShutdownOverrun: Bool, incarnation: String
    ) -> HostedRun {
        let resolved = configuration.withInstancePaths()
        let cluster = resolved.cluster
        return HostedRun(
            configuration: resolved, incarnation: incarnation, adoptedBy: nil, logger: logger,
            metricsFactory: cluster.isClustered ? InstanceLabelledMetricsFactory(base: metricsFactory, instance: cluster.instanceName) : metricsFactory,
            metricsTopic: cluster.isClustered ? .instanceMetrics(cluster.instanceName) : .metrics, releasableGauges: nil, publisherClientIDSuffix: "",
            continuesJournal: true,
            backlogMark: nil, shutdownReport: shutdownReport, exitOnShutdownOverrun: exitOnShutdownOverrun)
    }

    /// The stand-in of `dead`, adopted by `adopter` under `incarnation`: `base` under the dead
    /// name and its client ids (so its subscriber resumes the dead run's session), no HTTP, its
    /// metrics on the process's registry (`gateway_instance="{name}"`,
    /// `gateway_stand_in="{adopter}"`, its gauges removed when it ends), and a journal file of its
    /// own beside the adopter's (the dead run's file may still be held: a frozen process, or a
    /// restart waiting for the stand-in to leave).
    static func standIn(
        of dead: LeaseMember, incarnation: String, adopter: String, base: GatewayConfiguration, metricsFactory: any MetricsFactory, logger: Logger
    ) -> HostedRun {
        var configuration = base
        configuration.cluster.instance = dead.name
        if let session = dead.session { configuration.mqtt.clientID = session }
        configuration.http.listen = nil
        configuration.http.metricsListen = nil
        var resolved = configuration.withInstancePaths()
        // One file per dead name: an adopter may run several stand-ins at once.
        var own = base
        own.cluster.instance = adopter + GatewayConfiguration.Cluster.standInInfix + dead.name
        resolved.journal.path = own.withInstancePaths().journal.path
        var standInLogger = logger
        standInLogger[metadataKey: "standInOf"] = "\(dead.name)"
        let gauges = GaugeReleasingMetricsFactory(base: InstanceLabelledMetricsFactory(base: metricsFactory, instance: dead.name, standInOf: adopter))
        return HostedRun(
            configuration: resolved, incarnation: incarnation, adoptedBy: adopter, logger: standInLogger,
            metricsFactory: gauges, metricsTopic: nil, releasableGauges: gauges, publisherClientIDSuffix: "-stand-in", continuesJournal: false,
            backlogMark: "\(resolved.topics.scheme.outboundRoot)/instances/\(dead.name)/stand-in/\(incarnation)", shutdownReport: ShutdownReport(),
            exitOnShutdownOverrun: false)
    }
}
