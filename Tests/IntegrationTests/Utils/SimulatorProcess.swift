import BrokerTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real `wearable-sim` executable as a child process: its standard output is collected
/// line by line, so a test can wait for a line (e.g. "recording …") under a deadline.
final class SimulatorProcess: @unchecked Sendable {
    private let process: ChildProcess
    private let condition = NSCondition()
    private var lines: [String] = []
    private var outputClosed = false
    let arguments: [String]
    let errorLogURL: URL

    /// The built executable: next to the test bundle, or `WG_SIM_BIN`.
    static var executable: URL { builtExecutable("wearable-sim", override: "WG_SIM_BIN") }

    /// Starts `wearable-sim arguments…`; stderr goes to a log file in `directory`.
    init(_ arguments: [String], directory: URL) throws {
        self.arguments = arguments
        errorLogURL = directory.appendingPathComponent("wearable-sim-\(UUID().uuidString.prefix(6)).log")
        // Standard input is a pipe held open until ``closeInput()``: `testbed` stops at the end of it.
        process = try ChildProcess(Self.executable, arguments, standardInput: .pipe, standardOutput: .pipe, standardError: .file(errorLogURL))
        let reader = process.output!
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
    func closeInput() { try? process.input?.close() }

    /// Sends a signal.
    func signal(_ signal: Int32) { process.signal(signal) }

    /// Waits for the process to exit and its output to close; returns its exit status.
    func waitForExit(timeout: Double = 120) async throws -> Int32 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        guard let termination = await process.exited(timeout: timeout) else {
            throw TestFailure(
                "wearable-sim \(arguments.joined(separator: " ")) still runs after \(timeout) s; \(process.diagnosis)\nstderr:\n\(errorLog)")
        }
        // Only the child held the pipe's writing end: its output is complete once the reader drains it.
        let drained = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread { [self] in
                condition.lock()
                while !outputClosed && condition.wait(until: deadline) {}
                condition.unlock()
                continuation.resume(returning: condition.withLock { outputClosed })
            }.start()
        }
        guard drained else { throw TestFailure("wearable-sim \(arguments.joined(separator: " ")) exited but its output did not close") }
        return termination.status
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
