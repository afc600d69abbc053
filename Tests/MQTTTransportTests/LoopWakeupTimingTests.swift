import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

/// A publish from another thread is written at once, not at the network loop's next round:
/// libmosquitto only queues it (threaded mode) and the loop waits up to 100 ms in `poll()`
/// unless ``LoopWakeup`` ends the wait. It asserts a time bound, so `scripts/test.sh` runs it
/// alone with the other timed tests (`WG_TIMED_TESTS=1`).
@Suite("Publishing wakes the network loop", .enabled(if: ProcessInfo.processInfo.environment["WG_TIMED_TESTS"] != nil))
struct LoopWakeupTimingTests {
    @Test("100 publishes at QoS 1, one after the other, take far less than 100 rounds of the loop")
    func publishesGoOutAtOnce() async throws {
        let broker = try await TestBroker.started()
        let client = try await TestClients.connected(try TestClients.configuration(broker))
        let count = 100
        let started = ContinuousClock.now
        for index in 0..<count {
            try await client.publish(MQTTMessage(topic: "wake/\(index)", string: "\(index)", qos: .atLeastOnce))
        }
        let elapsed = ContinuousClock.now - started
        // Each publish waits for its PUBACK before the next; without the wake-up each one waited
        // for the loop's 100 ms poll timeout (about 10 s in all). With it: milliseconds.
        #expect(elapsed < .milliseconds(25 * count), "took \(elapsed)")
        await client.shutdown()
    }
}
