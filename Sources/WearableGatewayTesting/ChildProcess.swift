import CSpawn
import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A process the tests start (mosquitto, the gateway, the simulator, openssl): it inherits only
/// its three standard streams, no blocked or ignored signal, and its exit is seen by `waitpid`
/// on a thread of its own.
///
/// Foundation's `Process` is not used for this: it notices an exit when a socket it hands to the
/// child reaches end of file, and it closes the parent's other descriptors in the child from a
/// list taken before spawning. With tests starting processes in parallel, a child could inherit
/// another child's socket or output pipe; that child's exit or end of output then went unnoticed
/// until the inheriting process ended (a gateway that had stopped was reported as running).
public final class ChildProcess: @unchecked Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file, created if missing, appended to.
        case file(URL)
        /// A pipe: the parent's end is ``input`` (standard input) or ``output`` (standard output).
        case pipe
        /// Standard error only: wherever standard output goes.
        case standardOutput
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status, or the number of the signal that ended it (as Foundation's `Process` reports).
        public var status: Int32 {
            switch self {
            case .exited(let code), .signalled(let code): code
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    /// The child's process id.
    public let pid: pid_t
    /// The writing end of the child's standard input, for ``Stream/pipe``.
    public let input: FileHandle?
    /// The reading end of the child's standard output (and standard error, with
    /// ``Stream/standardOutput``), for ``Stream/pipe``.
    public let output: FileHandle?

    /// The child's end, once the reaper saw it.
    private let watch = WatchedState<Termination?>(nil)

    /// Starts `executable` with `arguments` in `directory` (nil: the current one), with this
    /// process's environment plus (replacing variables of the same name) `environment`.
    public init(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
        standardInput: Stream = .null, standardOutput: Stream = .null, standardError: Stream = .standardOutput
    ) throws {
        var closeAfterSpawn: [Int32] = []
        defer { closeAfterSpawn.forEach { _ = Glibc.close($0) } }
        func open(_ stream: Stream, writing: Bool) throws -> (child: Int32, parent: FileHandle?) {
            switch stream {
            case .null, .standardOutput:
                let fd = Glibc.open("/dev/null", (writing ? O_WRONLY : O_RDONLY) | O_CLOEXEC)
                guard fd >= 0 else { throw TestFailure("cannot open /dev/null: \(String(cString: strerror(errno)))") }
                closeAfterSpawn.append(fd)
                return (fd, nil)
            case .file(let url):
                let fd = Glibc.open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw TestFailure("cannot open \(url.path): \(String(cString: strerror(errno)))") }
                closeAfterSpawn.append(fd)
                return (fd, nil)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard wg_pipe_cloexec(&ends) == 0 else { throw TestFailure("pipe2 failed: \(String(cString: strerror(errno)))") }
                let (childEnd, parentEnd) = writing ? (ends[1], ends[0]) : (ends[0], ends[1])
                closeAfterSpawn.append(childEnd)
                return (childEnd, FileHandle(fileDescriptor: parentEnd, closeOnDealloc: true))
            }
        }
        let stdin = try open(standardInput, writing: false)
        let stdout = try open(standardOutput, writing: true)
        let stderr = if case .standardOutput = standardError { stdout } else { try open(standardError, writing: true) }
        input = stdin.parent
        output = stdout.parent

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child = pid_t()
        let rc = wg_spawn(&child, executable.path, argv, envp, directory?.path, stdin.child, stdout.child, stderr.child)
        guard rc == 0 else { throw TestFailure("cannot start \(executable.path): \(String(cString: strerror(rc)))") }
        pid = child

        // The reaper holds only the watch, not this handle, so dropping the handle kills the child.
        let reaper = Thread { [watch, child] in
            CurrentThread.setName("reaper-\(child)")
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
            watch.update { $0 = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f) }
        }
        reaper.start()
    }

    deinit {
        if isRunning { Glibc.kill(pid, SIGKILL) }
    }

    /// How it ended, or nil while it runs.
    public var termination: Termination? { watch.value }

    /// Whether it still runs (it has not been reaped yet).
    public var isRunning: Bool { termination == nil }

    /// Sends `signal` unless it has ended (its pid may belong to another process by then).
    public func signal(_ signal: Int32) {
        watch.update { ended in
            if ended == nil { Glibc.kill(pid, signal) }
        }
    }

    /// Blocks until it ends or `timeout` seconds pass (nil: however long it takes); nil on timeout.
    @discardableResult
    public func waitUntilExit(timeout: Double? = nil) -> Termination? {
        watch.blockingWait(timeout: timeout) { $0 }
    }

    /// Runs a program to its end, off Swift's cooperative pool (a blocking wait there, such as
    /// openssl making RSA keys under load, stalls every other test's tasks).
    /// - Returns: how it ended and everything it wrote to standard output and standard error.
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
    ) async throws -> (termination: Termination, output: String) {
        let child = try ChildProcess(executable, arguments, in: directory, environment: environment, standardOutput: .pipe)
        return await offPool {
            // The pipe's writing end exists only in the child, so its end of file is the child's.
            let output = String(decoding: child.output!.readDataToEndOfFile(), as: UTF8.self)
            // Without a timeout the wait returns only once the child has ended.
            return (child.waitUntilExit()!, output)
        }
    }

    /// Waits, off Swift's cooperative pool, until it ends or `timeout` seconds pass; nil on timeout.
    public func exited(timeout: Double) async -> Termination? {
        await offPool { self.waitUntilExit(timeout: timeout) }
    }

    /// What the kernel says the process is doing, for a failure message when it does not end:
    /// its state and each thread's name, state and wait channel.
    public var diagnosis: String {
        guard isRunning else { return "ended (\(termination.map(\.description) ?? ""))" }
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let threads = tasks.sorted().map { tid -> String in
            func read(_ name: String) -> String {
                ((try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/\(name)", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let state = read("stat").split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
            return "\(tid) \(read("comm")) \(state) \(read("wchan"))"
        }
        return "pid \(pid) running; threads (tid name state wait-channel):\n" + threads.joined(separator: "\n")
    }
}
