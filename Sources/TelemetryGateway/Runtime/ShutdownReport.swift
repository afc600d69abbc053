import Locking
import MQTTTransport
import TelemetryCore

/// What a graceful shutdown managed, for the exit status: the executable exits 0 after a
/// complete drain and ``incompleteExitCode`` when something was left for the journal to replay
/// on the next start (docs/reliability.md).
public final class ShutdownReport: Sendable {
    /// Exit status of a shutdown that could not drain everything in time (EX_TEMPFAIL).
    public static let incompleteExitCode: Int32 = 75

    private let problems = LockedState<[String]>([])

    /// Creates an empty report.
    public init() {}

    /// Notes what could not be finished.
    func record(_ problem: String) {
        problems.withLock { $0.append(problem) }
    }

    /// What could not be finished, in order; empty after a complete drain.
    public var incomplete: [String] { problems.withLock { $0 } }

    /// Whether everything was drained.
    public var isComplete: Bool { incomplete.isEmpty }
}
