import ArgumentParser
import Foundation
import Logging
import Metrics
import Ownership
import Prometheus
import ServiceLifecycle
import TelemetryGateway

/// `wearable-gateway run`: runs the gateway until SIGTERM or SIGINT.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the gateway until SIGTERM/SIGINT (which drain the queues and publish gateway/status offline).",
        discussion: """
            Exit status: 0 after a complete drain; 75 when the shutdown could not drain everything within \
            2 × pipeline.drainTimeout (what was left stays in the journal and is replayed at the next start); \
            78 for a configuration that cannot be used, or when another live run holds this instance's \
            cluster.instance (at start, or a run replaced while it was frozen or away from the store).
            """)

    @OptionGroup var options: ConfigurationOptions

    func run() async throws {
        let loaded = try options.load()
        let configuration = loaded.configuration
        let policy = try options.loadAccessPolicy(configuration)
        // A parent (e.g. Foundation's Process) may have left these blocked; the graceful
        // shutdown depends on receiving them.
        SignalMask.unblock([SIGTERM, SIGINT, SIGHUP])
        // The one system clock of the run: the logs and the whole runtime read it.
        let clock = SystemGatewayClock()

        LoggingSystem.bootstrap { label in
            switch configuration.logFormat {
            case .json:
                // While a frame's span is current (tracing on), its trace_id and span_id too.
                var handler = JSONLogHandler(label: label, clock: clock, metadataProvider: JSONLogHandler.spanMetadata)
                handler.logLevel = configuration.logLevel
                return handler
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = configuration.logLevel
                return handler
            }
        }
        let logger = Logger(label: "wearable-gateway")
        for warning in loaded.warnings + policy.warnings { logger.warning("\(warning)") }
        logger.info("configuration: \(options.configurationFile ?? "(defaults only)")")
        logger.info("access policy: \(policy.summary) (registry.file \(configuration.registryFile ?? "null"), capabilities.file \(configuration.capabilitiesFile))")
        // Every HTTP client, MQTT connection, store connection and file holds a descriptor; a
        // shell's soft limit of 1,024 is low for a server, and the hard one is ours to take.
        do {
            let limit = try OpenFileLimit.raiseSoftLimit()
            if limit.after > limit.before {
                logger.info("open files: soft limit raised from \(limit.before) to \(limit.after) (the hard limit)")
            }
        } catch {
            logger.warning("open files: the soft limit stays \(OpenFileLimit.current().map { String($0.soft) } ?? "unknown"): \(error)")
        }

        let metricsRegistry = PrometheusCollectorRegistry()
        let factory = CatalogMetricsFactory(registry: metricsRegistry)
        MetricsSystem.bootstrap(factory)

        let report = ShutdownReport()
        let group: ServiceGroup
        do {
            group = try buildGateway(
                configuration: configuration, logger: logger, metricsFactory: factory, prometheus: metricsRegistry, accessPolicy: policy.policy,
                shutdownReport: report, exitOnShutdownOverrun: true, clock: clock)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(78)
        }
        do {
            try await group.run()
        } catch let inUse as InstanceNameInUse {
            // Logged by the ownership already; the status says it to a supervisor.
            logger.critical("stopped: \(inUse); exit status 78")
            throw ExitCode(78)
        }
        if !report.isComplete {
            logger.error("stopped without draining everything (\(report.incomplete.joined(separator: "; "))); exit status \(ShutdownReport.incompleteExitCode)")
            throw ExitCode(ShutdownReport.incompleteExitCode)
        }
        logger.info("wearable-gateway stopped")
    }
}
