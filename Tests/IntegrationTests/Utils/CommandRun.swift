import Foundation

/// Runs a command to its end and returns its exit status and combined output.
/// - Parameters:
///   - executable: the program.
///   - arguments: its arguments.
///   - directory: the working directory, or nil for the test's own.
func runToExit(_ executable: URL, _ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardError = pipe
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
}
