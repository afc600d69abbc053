import Foundation
import WearableGatewayTesting

/// Runs a command to its end off Swift's cooperative pool (``ChildProcess/run(_:_:in:environment:)``).
/// - Returns: the exit status (or the number of the signal that ended it) and everything written
///   to stdout and stderr.
public func runChildProcess(_ executable: URL, _ arguments: [String], in directory: URL? = nil) async throws -> (status: Int32, output: String) {
    let (termination, output) = try await ChildProcess.run(executable, arguments, in: directory)
    return (termination.status, output)
}
