import BrokerTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real `wearable-sim` executable as a child process: its standard output is collected
/// line by line, so a test can wait for a line (e.g. "recording …") under a deadline.
final class SimulatorProcess: @unchecked Sendable {
    private let process = Process()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var outputClosed = false
    let arguments: [String]
    let errorLogURL: URL
    private let input = Pipe()

    /// The built executable: next to the test bundle, or `WG_SIM_BIN`.
    static var executable: URL { builtExecutable("wearable-sim", override: "WG_SIM_BIN") }

    /// Starts `wearable-sim arguments…`; stderr goes to a log file in `directory`.
    init(_ arguments: [String], directory: URL) throws {
        self.arguments = arguments
        errorLogURL = directory.appendingPathComponent("wearable-sim-\(UUID().uuidString.prefix(6)).log")
        _ = FileManager.default.createFile(atPath: errorLogURL.path, contents: nil)
        let pipe = Pipe()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = try FileHandle(forWritingTo: errorLogURL)
        // A pipe held open until ``closeInput()``: `testbed` stops at the end of its stdin.
        process.standardInput = input
        try process.run()
        let reader = pipe.fileHandleForReading
        Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = reader.availableData
                condition.lock()
                if chunk.isEmpty {
                    if !buffer.isEmpty { lines.append(String(decoding: buffer, as: UTF8.self)) }
                    outputClosed = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer = Data(buffer[buffer.index(after: newline)...])
                }
                condition.broadcast()
                condition.unlock()
            }
        }.start()
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        closeInput()
    }

    /// Standard output so far, one entry per line.
    var output: [String] { condition.withLock { lines } }

    /// Waits for a line starting with `prefix` and returns it.
    func waitForLine(startingWith prefix: String, timeout: Double = 60) async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            Thread { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                condition.lock()
                defer { condition.unlock() }
                while true {
                    if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return continuation.resume(returning: line) }
                    if outputClosed || !condition.wait(until: deadline) {
                        if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return continuation.resume(returning: line) }
                        return continuation.resume(
                            throwing: TestFailure("wearable-sim \(arguments.joined(separator: " ")) printed no '\(prefix)' line; stdout: \(lines); stderr:\n\(errorLog)"))
                    }
                }
            }.start()
        }
    }

    /// Closes the process's standard input.
    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Sends a signal.
    func signal(_ signal: Int32) { Glibc.kill(process.processIdentifier, signal) }

    /// Waits for the process to exit and its output to close; returns its exit status.
    func waitForExit(timeout: Double = 120) async throws -> Int32 {
        let process = process
        let exited = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                condition.lock()
                while !outputClosed && condition.wait(until: deadline) {}
                condition.unlock()
                // The output closes when the process exits; the exit status follows at once.
                while process.isRunning && Date() < deadline { usleep(10_000) }
                continuation.resume(returning: !process.isRunning)
            }.start()
        }
        guard exited else { throw TestFailure("wearable-sim \(arguments.joined(separator: " ")) still runs after \(timeout) s; stderr:\n\(errorLog)") }
        return process.terminationStatus
    }

    /// Waits for the process to exit; throws unless it exited with 0.
    func waitForSuccess(timeout: Double = 120) async throws {
        let status = try await waitForExit(timeout: timeout)
        guard status == 0 else {
            throw TestFailure("wearable-sim \(arguments.joined(separator: " ")) exited with \(status); stdout: \(output); stderr:\n\(errorLog)")
        }
    }

    var errorLog: String { (try? String(contentsOf: errorLogURL, encoding: .utf8)) ?? "" }
}
