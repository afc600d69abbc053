import BrokerTestSupport
import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// The real `wearable-sim` executable as a child process: its standard output is collected
/// line by line, so a test can wait for a line (e.g. "recording …") under a deadline.
final class SimulatorProcess: Sendable {
    private let process: ChildProcess
    /// Standard output's lines so far, and whether it closed.
    private let standardOutput = WatchedState<(lines: [String], closed: Bool)>(([], false))
    let arguments: [String]
    let errorLogURL: URL

    /// The built executable: next to the test bundle, or `WG_SIM_BIN`.
    static var executable: URL { builtExecutable("wearable-sim", override: "WG_SIM_BIN") }

    /// Starts `wearable-sim arguments…` (or `executable`, a copy of it) with `environment` added
    /// to this process's, in `workingDirectory` if given; stderr goes to a log file in `directory`.
    init(
        _ arguments: [String], directory: URL, environment: [String: String] = [:], executable: URL = SimulatorProcess.executable,
        workingDirectory: URL? = nil
    ) throws {
        self.arguments = arguments
        errorLogURL = directory.appendingPathComponent("wearable-sim-\(UUID().uuidString.prefix(6)).log")
        // Standard input is a pipe held open until ``closeInput()``: `testbed` stops at the end of it.
        process = try ChildProcess(
            executable, arguments, in: workingDirectory, environment: environment, standardInput: .pipe, standardOutput: .pipe, standardError: .file(errorLogURL))
        let reader = process.output!
        Thread { [standardOutput] in
            var buffer = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty {
                    standardOutput.update {
                        if !buffer.isEmpty { $0.lines.append(String(decoding: buffer, as: UTF8.self)) }
                        $0.closed = true
                    }
                    return
                }
                buffer.append(chunk)
                var complete: [String] = []
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    complete.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer = Data(buffer[buffer.index(after: newline)...])
                }
                if !complete.isEmpty { standardOutput.update { $0.lines += complete } }
            }
        }.start()
    }

    deinit {
        closeInput()
    }

    /// Standard output so far, one entry per line.
    var output: [String] { standardOutput.value.lines }

    /// Waits for a line starting with `prefix` and returns it.
    func waitForLine(startingWith prefix: String, timeout: Double = 60) async throws -> String {
        // Done when the line is there, or when no line can come any more.
        let found = await standardOutput.wait(timeout: timeout) { output -> String?? in
            if let line = output.lines.first(where: { $0.hasPrefix(prefix) }) { return .some(line) }
            return output.closed ? .some(nil) : nil
        }
        guard let line = found ?? nil else {
            throw TestFailure("wearable-sim \(arguments.joined(separator: " ")) printed no '\(prefix)' line; stdout: \(output); stderr:\n\(errorLog)")
        }
        return line
    }

    /// Waits until its standard error (the log file) contains `text`.
    func waitForErrorLog(containing text: String, timeout: Double = 60) async throws {
        let process = process
        guard await poll(errorLogURL, timeout: timeout, while: { process.isRunning }, until: { $0.contains(text) }) else {
            throw TestFailure("wearable-sim \(arguments.joined(separator: " ")) logged no '\(text)' within \(timeout) s; stderr:\n\(errorLog)")
        }
    }

    /// Closes the process's standard input.
    func closeInput() { try? process.input?.close() }

    /// Sends a signal.
    func signal(_ signal: Int32) { process.signal(signal) }

    /// Waits for the process to exit and its output to close; returns its exit status.
    func waitForExit(timeout: Double = 120) async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(timeout)
        guard let termination = await process.exited(timeout: timeout) else {
            throw TestFailure(
                "wearable-sim \(arguments.joined(separator: " ")) still runs after \(timeout) s; \(process.diagnosis)\nstderr:\n\(errorLog)")
        }
        // Only the child held the pipe's writing end: its output is complete once the reader drains it.
        let drained = await standardOutput.wait(timeout: max(0, (deadline - .now).inSeconds)) { $0.closed }
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
