extension GatewayConfiguration {
    /// Processing of inbound frames.
    public struct Pipeline: Sendable {
        /// Worker tasks devices are sharded over; 0 means one per CPU core.
        public var workers = 0
        /// Frames a worker's queue holds before the subscriber blocks.
        public var queueCapacity = 8192
        /// Longest the subscriber blocks on a full queue before admitting over capacity.
        public var maximumHandoffWait = 5.0
        /// Largest payload accepted, in bytes.
        public var maximumPayloadBytes = 1_048_576
        /// Error events are aggregated per (device, code, stream) over this many seconds.
        public var errorReportInterval = 10.0
        /// Longest a graceful shutdown waits for queued frames, in seconds; the whole shutdown
        /// (acknowledgements included) ends within twice this.
        public var drainTimeout = 15.0
        /// Bytes all worker queues may hold together before the subscriber blocks.
        public var maximumBufferedBytes = 134_217_728
        /// Seconds the subscriber lets frames gather once it has read all that arrived (0: none).
        public var receiveCoalescing = 0.01

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.Pipeline {
    /// The `pipeline.*` keys.
    package static let keys: [ConfigurationKey] = [
        .integer(
            "pipeline.workers",
            "Worker tasks devices are sharded over by a hash of the id (0: one per CPU the gateway may use, its CPU affinity capped by its cgroup CPU limit; with the broker on the same 2 cores, 1 sustained more: performance.md).",
            in: 0...1024, \.pipeline.workers),
        .integer(
            "pipeline.queueCapacity", "Frames each worker queue holds before the subscriber applies backpressure.", in: 16...10_000_000,
            \.pipeline.queueCapacity),
        .integer(
            "pipeline.maxBufferedBytes", "Bytes all worker queues may hold together before the subscriber applies backpressure (memory bound).",
            in: 1_048_576...68_719_476_736, \.pipeline.maximumBufferedBytes),
        .number(
            "pipeline.maxHandoffWait", "Longest the subscriber blocks on a full queue (s) before admitting over capacity (counted).", in: 0.001...3600,
            \.pipeline.maximumHandoffWait
        )
        .checked { configuration in
            let wait = configuration.pipeline.maximumHandoffWait
            let keepalive = configuration.mqtt.keepalive
            return wait * 2 < Double(keepalive) ? nil : "must be under half of mqtt.keepalive (\(keepalive) s), got \(wait): a longer block risks a keepalive timeout"
        },
        .number(
            "pipeline.receiveCoalescing",
            "While frames flow, how long the subscriber lets them gather in the socket after reading all that had arrived (s; 0: none): fewer wake-ups per frame below full load, at most this much added latency (performance.md).",
            in: 0...0.1, \.pipeline.receiveCoalescing),
        .integer("pipeline.maxPayloadBytes", "Largest frame payload accepted, in bytes.", in: 1...268_435_455, \.pipeline.maximumPayloadBytes),
        .number(
            "pipeline.errorReportInterval", "Error events are aggregated per (device, code, stream) over this many seconds.", in: 0.1...86400,
            \.pipeline.errorReportInterval),
        .number("pipeline.drainTimeout", "Longest a graceful shutdown waits for queued frames and publishes (s).", in: 0...3600, \.pipeline.drainTimeout),
    ]
}
