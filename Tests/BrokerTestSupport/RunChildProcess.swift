import Foundation
import WearableGatewayTesting

/// Runs a command to its end without holding a thread of Swift's cooperative pool: waiting
/// for the exit and reading the output happen on a thread of their own. Tests run in parallel
/// on a pool a couple of threads wide, and a blocking wait there (openssl making RSA keys under
/// load takes seconds) stalls every other test's tasks, which then time out.
/// - Returns: the exit status and everything written to stdout and stderr.
public func runChildProcess(_ executable: URL, _ arguments: [String], in directory: URL? = nil) async throws -> (status: Int32, output: String) {
    let process = try ChildProcess(executable, arguments, in: directory, standardOutput: .pipe)
    let output = process.output!
    return await withCheckedContinuation { continuation in
        Thread {
            // The pipe's writing end exists only in the child, so its end of file is the child's.
            let text = String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
            let termination = process.waitUntilExit()
            continuation.resume(returning: (termination?.status ?? -1, text))
        }.start()
    }
}
