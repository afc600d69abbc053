import Locking
import Logging

/// A log handler that tells a test when the service group starts the graceful shutdown of one
/// of its services (swift-service-lifecycle says so at debug level, naming the service), so a
/// test can act at a given point of the shutdown order instead of guessing it with time.
final class ServiceShutdownLog: Sendable {
    private struct State {
        /// The names of the services whose shutdown was triggered, in order.
        var triggered: [String] = []
        var waiters: [(prefix: String, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedState(State())

    /// A logger at `level` for everything else, whose service-group messages reach this log.
    func logger(label: String, level: Logger.Level) -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self, level: level) }
        logger.logLevel = .debug
        return logger
    }

    /// Returns once the group has triggered the shutdown of a service whose name starts with
    /// `prefix` (a service's default name is its description, which starts with its type's name).
    func waitForShutdown(of prefix: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let triggered = state.withLock { state in
                if state.triggered.contains(where: { $0.hasPrefix(prefix) }) { return true }
                state.waiters.append((prefix, continuation))
                return false
            }
            if triggered { continuation.resume() }
        }
    }

    fileprivate func triggered(_ service: String) {
        let ready = state.withLock { state in
            state.triggered.append(service)
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard service.hasPrefix(waiter.prefix) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    private struct Handler: LogHandler {
        let log: ServiceShutdownLog
        /// Messages at this level and above go to standard error (the service group's debug
        /// messages are only looked at).
        let level: Logger.Level
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            if "\(event.message)" == "Triggering graceful shutdown for service", let service = event.metadata?["sl-service"] {
                log.triggered("\(service)")
            }
            if event.level >= level { print("\(event.level): \(event.message)") }
        }
    }
}
