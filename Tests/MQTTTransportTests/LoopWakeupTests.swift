import Glibc
import Testing

@testable import MQTTTransport

@Suite("Network loop wake-up")
struct LoopWakeupTests {
    /// Whether the wake-up's descriptor is readable now.
    private func isSignalled(_ wakeup: LoopWakeup) -> Bool {
        var entry = pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    @Test("a signal wakes the wait until drained; signals before the drain are one write")
    func signalAndDrain() throws {
        let wakeup = try LoopWakeup()
        #expect(!isSignalled(wakeup))
        wakeup.signal()
        wakeup.signal()
        wakeup.signal()
        #expect(isSignalled(wakeup))
        // The eventfd counts writes: one for the three signals.
        var count: UInt64 = 0
        #expect(read(wakeup.descriptor, &count, 8) == 8)
        #expect(count == 1)
        wakeup.drain()
        #expect(!isSignalled(wakeup))
        wakeup.signal()
        #expect(isSignalled(wakeup), "a signal after the drain wakes the next wait")
        wakeup.drain()
        #expect(!isSignalled(wakeup))
    }
}
