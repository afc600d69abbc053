import Foundation
import Testing
import WearableGatewayTesting

#if canImport(Glibc)
import Glibc
#endif

/// What a child started by the kit inherits, and how its end is reported.
@Suite("Child processes of the tests")
struct ChildProcessTests {
    private static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test("a descriptor the parent opened without close-on-exec is not inherited; the three standard streams are")
    func onlyStandardStreamsInherited() async throws {
        var leaky: [Int32] = [-1, -1]
        try #require(pipe(&leaky) == 0)
        defer { leaky.forEach { close($0) } }
        // The shell lists its open descriptors; its own listing may open one more, so only the
        // parent's pipe is checked for, by number.
        let (status, output) = try await ChildProcess.run(Self.shell, ["-c", "ls /proc/self/fd"])
        #expect(status == .exited(0))
        let descriptors = Set(output.split(separator: "\n").compactMap { Int32($0) })
        #expect(descriptors.isSuperset(of: [0, 1, 2]))
        #expect(!descriptors.contains(leaky[0]) && !descriptors.contains(leaky[1]), "inherited: \(descriptors.sorted())")
    }

    @Test("a signal blocked in the starting thread is not blocked in the child")
    func signalMaskCleared() async throws {
        let output = try await Task.detached {
            // Block SIGTERM in a thread of our own, start from it, and ask the child for its mask.
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                Thread {
                    var blocked = sigset_t()
                    sigemptyset(&blocked)
                    sigaddset(&blocked, SIGTERM)
                    pthread_sigmask(SIG_BLOCK, &blocked, nil)
                    continuation.resume(with: Result {
                        // grep itself, not through a shell: dash clears its signal mask when it starts.
                        let child = try ChildProcess(URL(fileURLWithPath: "/bin/grep"), ["SigBlk", "/proc/self/status"], standardOutput: .pipe)
                        return String(decoding: child.output!.readDataToEndOfFile(), as: UTF8.self)
                    })
                }.start()
            }
        }.value
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("0000000000000000"), "\(output)")
    }

    @Test("exit status and terminating signal are reported; a running child's threads are described")
    func terminationReported() async throws {
        #expect(try await ChildProcess.run(Self.shell, ["-c", "exit 7"]).termination == .exited(7))
        let sleeper = try ChildProcess(URL(fileURLWithPath: "/bin/sleep"), ["60"])
        #expect(sleeper.isRunning)
        #expect(await sleeper.exited(timeout: 0.05) == nil)
        #expect(sleeper.diagnosis.contains("sleep"))
        sleeper.signal(SIGTERM)
        #expect(await sleeper.exited(timeout: 30) == .signalled(SIGTERM))
        #expect(!sleeper.isRunning)
    }

    @Test("dropping the handle of a running child kills it")
    func droppedHandleKills() async throws {
        var sleeper: ChildProcess? = try ChildProcess(URL(fileURLWithPath: "/bin/sleep"), ["60"])
        let pid = try #require(sleeper?.pid)
        #expect(Glibc.kill(pid, 0) == 0)
        sleeper = nil
        // Gone once reaped: the reaper thread outlives the handle.
        let deadline = ContinuousClock.now + .seconds(30)
        while Glibc.kill(pid, 0) == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Glibc.kill(pid, 0) == -1 && errno == ESRCH, "sleep \(pid) still exists")
        _ = sleeper
    }

    @Test("standard error can follow standard output into one pipe; a working directory is honoured")
    func outputAndDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
        let (termination, output) = try await ChildProcess.run(Self.shell, ["-c", "pwd; echo oops >&2"], in: directory)
        #expect(termination == .exited(0))
        #expect(output == "\(directory.path)\noops\n")
    }

    @Test("added environment variables reach the child, replacing inherited ones of the same name; the rest is inherited")
    func environmentAdded() async throws {
        let inheritedPath = try #require(ProcessInfo.processInfo.environment["PATH"])
        let (status, output) = try await ChildProcess.run(
            Self.shell, ["-c", #"printf '%s|%s|%s' "$WG_CHILD_TEST" "$HOME" "$PATH""#], environment: ["WG_CHILD_TEST": "added", "HOME": "/replaced"])
        #expect(status == .exited(0))
        #expect(output == "added|/replaced|\(inheritedPath)")
    }
}
