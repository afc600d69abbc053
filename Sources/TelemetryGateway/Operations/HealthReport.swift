import TelemetryCore

/// The answer of `/healthz` or `/readyz`: whether all is well and, if not, why.
public struct HealthReport: Sendable, Equatable {
    /// One queue's fill level.
    public struct QueueLoad: Sendable, Equatable {
        /// The queue's name, e.g. `worker-0` or `recorder-queries`.
        public var name: String
        /// Items waiting.
        public var depth: Int
        /// The limit the queue is configured with.
        public var capacity: Int

        /// Creates a load.
        public init(name: String, depth: Int, capacity: Int) {
            self.name = name
            self.depth = depth
            self.capacity = capacity
        }
    }

    /// A store's writes, for the readiness body. A failing store does not make the gateway
    /// unready: frames are still processed and published, only what survives a crash is less.
    public struct StoreHealth: Sendable, Equatable {
        /// The store's configuration key, e.g. `state.path`.
        public var name: String
        /// Whether its last write failed.
        public var failing: Bool
        /// Writes that failed since the start.
        public var failures: Int
        /// The last failure's error.
        public var lastError: String?

        /// Creates a store's health.
        public init(name: String, failing: Bool, failures: Int, lastError: String?) {
            self.name = name
            self.failing = failing
            self.failures = failures
            self.lastError = lastError
        }
    }

    /// The event history's writer, for the readiness body. Neither a failing store nor dropped
    /// events make the gateway unready: frames go on, only the history has gaps (counted).
    public struct HistoryHealth: Sendable, Equatable {
        /// Bytes of events waiting for the store.
        public var bufferedBytes: Int
        /// The bound of those bytes (`history.bufferBytes`).
        public var bufferBytes: Int
        /// Events dropped since the start (`gateway_history_dropped_total`).
        public var dropped: Int
        /// The last write's error while the store is failing; nil when the last write succeeded.
        public var lastError: String?

        /// Creates the history's health.
        public init(bufferedBytes: Int, bufferBytes: Int, dropped: Int, lastError: String?) {
            self.bufferedBytes = bufferedBytes
            self.bufferBytes = bufferBytes
            self.dropped = dropped
            self.lastError = lastError
        }
    }

    /// True when every check passed.
    public var ok: Bool { problems.isEmpty }
    /// Human-readable reasons, one per failed check.
    public var problems: [String]
    /// Connection name → up, for the readiness body.
    public var connections: [String: Bool] = [:]
    /// The queues checked, for the readiness body.
    public var queues: [QueueLoad] = []
    /// The stores that reported writes, for the readiness body.
    public var stores: [StoreHealth] = []
    /// The event history's writer, when the history is on.
    public var history: HistoryHealth?

    /// Creates a report.
    public init(
        problems: [String], connections: [String: Bool] = [:], queues: [QueueLoad] = [], stores: [StoreHealth] = [], history: HistoryHealth? = nil
    ) {
        self.problems = problems
        self.connections = connections
        self.queues = queues
        self.stores = stores
        self.history = history
    }

    /// The JSON body: `{"status":"ok"|"unavailable","reasons":[...],...}`; a failing store shows
    /// as `"stores":[{"name":"state.path","status":"failing","failures":3,"lastError":"..."}]`, the
    /// event history as `"history":{"status":"failing"|"dropping"|"ok","bufferedBytes":…,"bufferBytes":…,"dropped":…}`.
    public var json: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.object {
            $0.field("status", ok ? "ok" : "unavailable")
            $0.field("reasons", array: { list in
                for problem in problems { list.value(problem) }
            })
            if !connections.isEmpty {
                $0.field("connections", object: { object in
                    for name in connections.keys.sorted() { object.field(name, connections[name] ?? false) }
                })
            }
            if !queues.isEmpty {
                $0.field("queues", array: { list in
                    for queue in queues {
                        list.object {
                            $0.field("name", queue.name)
                            $0.field("depth", queue.depth)
                            $0.field("capacity", queue.capacity)
                        }
                    }
                })
            }
            if !stores.isEmpty {
                $0.field("stores", array: { list in
                    for store in stores {
                        list.object {
                            $0.field("name", store.name)
                            $0.field("status", store.failing ? "failing" : "ok")
                            $0.field("failures", store.failures)
                            if let error = store.lastError { $0.field("lastError", error) }
                        }
                    }
                })
            }
            if let history {
                $0.field("history", object: { object in
                    object.field("status", history.lastError != nil ? "failing" : history.dropped > 0 ? "dropping" : "ok")
                    object.field("bufferedBytes", history.bufferedBytes)
                    object.field("bufferBytes", history.bufferBytes)
                    object.field("dropped", history.dropped)
                    if let error = history.lastError { object.field("lastError", error) }
                })
            }
        }
        return writer.bytes
    }
}
