import Foundation

/// Runs a command to its end without holding a thread of Swift's cooperative pool: waiting
/// for the exit and reading the output happen on a thread of their own. Tests run in parallel
/// on a pool a couple of threads wide, and a blocking wait there (openssl making RSA keys under
/// load takes seconds) stalls every other test's tasks, which then time out.
/// - Returns: the exit status and everything written to stdout and stderr.
public func runChildProcess(_ executable: URL, _ arguments: [String], in directory: URL? = nil) async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    return await withCheckedContinuation { continuation in
        Thread {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            continuation.resume(returning: (process.terminationStatus, output))
        }.start()
    }
}
