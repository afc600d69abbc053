import Foundation
import Locking
import Testing

/// Thread names, as `top -H`, `ps -L` and `perf` read them from the kernel.
@Suite("Current thread")
struct CurrentThreadTests {
    /// The kernel's name of a new thread after `body` ran on it.
    private func kernelName(after body: @escaping @Sendable () -> Void) async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let thread = Thread {
                body()
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                continuation.resume(returning: name.trimmingCharacters(in: .newlines))
            }
            thread.start()
        }
    }

    @Test("a short name reaches the kernel as it is")
    func shortName() async {
        #expect(await kernelName { CurrentThread.setName("mqtt-in") } == "mqtt-in")
    }

    @Test("a longer name is cut to the 15 bytes Linux keeps, at a character boundary")
    func longName() async {
        #expect(await kernelName { CurrentThread.setName("journal-replay-of-the-previous-run") } == "journal-replay-")
        // "é" takes two bytes: 14 ASCII bytes leave no room for it.
        #expect(await kernelName { CurrentThread.setName("abcdefghijklmné") } == "abcdefghijklmn")
    }
}
