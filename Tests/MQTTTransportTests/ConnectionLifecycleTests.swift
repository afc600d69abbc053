import Testing

@testable import MQTTTransport

/// A seeded generator (SplitMix64), so the jitter a test sees is repeatable.
private struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Connection life cycle (pure)")
struct ConnectionLifecycleTests {
    private let reconnect = MQTTClientConfiguration.Reconnect(initialDelay: 0.25, maximumDelay: 8)
    private let start = ContinuousClock.now

    private func backOffSeconds(_ actions: [ConnectionLifecycle.Action]) -> Double? {
        for case .backOff(let seconds, _) in actions { return seconds }
        return nil
    }

    @Test("connects, and an accepted CONNACK without a session resubscribes before announcing")
    func connectAndResubscribe() {
        var lifecycle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 10)
        var random = SystemRandomNumberGenerator()
        #expect(lifecycle.handle(.start, now: start, random: &random) == [.connect(attempt: 0)])
        #expect(lifecycle.handle(.connectCallSent, now: start, random: &random).isEmpty)
        let actions = lifecycle.handle(.connack(reasonCode: 0, sessionPresent: false, reason: ""), now: start, random: &random)
        #expect(actions == [.resubscribe, .announceConnected(sessionPresent: false)])
        #expect(lifecycle.phase == .connected)
        let resumed = lifecycle.handle(.connack(reasonCode: 0, sessionPresent: true, reason: ""), now: start, random: &random)
        #expect(resumed.isEmpty, "a CONNACK outside an attempt is ignored")
    }

    @Test("failures back off with full jitter under a doubling ceiling, and the next attempt comes when the wait is over")
    func jitteredBackoff() {
        var lifecycle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 10)
        var random = SystemRandomNumberGenerator()
        var now = start
        _ = lifecycle.handle(.start, now: now, random: &random)
        for failure in 0..<8 {
            let actions = lifecycle.handle(.connectCallFailed(reason: "refused"), now: now, random: &random)
            let delay = try! #require(backOffSeconds(actions))
            let ceiling = reconnect.delay(afterFailures: failure)
            #expect(delay >= reconnect.initialDelay / 2 && delay <= ceiling, "failure \(failure): \(delay) not in [\(reconnect.initialDelay / 2), \(ceiling)]")
            #expect(lifecycle.handle(.tick, now: now, random: &random).isEmpty, "no attempt before the wait is over")
            now += .seconds(delay)
            #expect(lifecycle.handle(.tick, now: now, random: &random) == [.connect(attempt: failure + 1)])
        }
        // An accepted CONNACK resets the count.
        _ = lifecycle.handle(.connectCallSent, now: now, random: &random)
        _ = lifecycle.handle(.connack(reasonCode: 0, sessionPresent: true, reason: ""), now: now, random: &random)
        #expect(lifecycle.failures == 0)
    }

    @Test("jitter spreads clients: a thousand clients after the same failures do not retry together")
    func jitterSpreads() {
        var random = SeededRandom(state: 42)
        let ceiling = reconnect.delay(afterFailures: 5)
        let delays = (0..<1000).map { _ in reconnect.jitteredDelay(afterFailures: 5, using: &random) }
        #expect(delays.allSatisfy { $0 >= reconnect.initialDelay / 2 && $0 <= ceiling })
        // Spread over the whole range: each tenth of it gets some of the clients.
        let width = (ceiling - reconnect.initialDelay / 2) / 10
        let buckets = Set(delays.map { Int(($0 - reconnect.initialDelay / 2) / width) })
        #expect(buckets.count >= 10)
    }

    @Test("no CONNACK within the timeout: the attempt is abandoned and retried")
    func connectTimeout() {
        var lifecycle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 2)
        var random = SystemRandomNumberGenerator()
        _ = lifecycle.handle(.start, now: start, random: &random)
        _ = lifecycle.handle(.connectCallSent, now: start, random: &random)
        #expect(lifecycle.handle(.tick, now: start + .seconds(1.9), random: &random).isEmpty)
        let actions = lifecycle.handle(.tick, now: start + .seconds(2.1), random: &random)
        #expect(actions.prefix(2) == [.abortAttempt, .connectionEnded(reason: "no CONNACK within 2.0 s")])
        #expect(backOffSeconds(actions) != nil)
    }

    @Test("a session takeover is announced and waits the long delay, not the quick first retry")
    func takeover() {
        var lifecycle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 10)
        var random = SystemRandomNumberGenerator()
        _ = lifecycle.handle(.start, now: start, random: &random)
        _ = lifecycle.handle(.connectCallSent, now: start, random: &random)
        _ = lifecycle.handle(.connack(reasonCode: 0, sessionPresent: true, reason: ""), now: start, random: &random)
        let actions = lifecycle.handle(.disconnected(reasonCode: 0x8E, reason: "session taken over"), now: start, random: &random)
        #expect(actions.first == .announceTakeover)
        let delay = try! #require(backOffSeconds(actions))
        #expect(delay >= reconnect.maximumDelay / 2 && delay <= reconnect.maximumDelay)
        // The loop's own report of the same loss is ignored: one loss, one backoff.
        #expect(lifecycle.handle(.connectionLost(reason: "connection lost"), now: start, random: &random).isEmpty)
        // An ordinary loss afterwards backs off normally again.
        _ = lifecycle.handle(.tick, now: start + .seconds(delay), random: &random)
        _ = lifecycle.handle(.connectCallSent, now: start + .seconds(delay), random: &random)
        let next = lifecycle.handle(.connectionLost(reason: "reset"), now: start + .seconds(delay), random: &random)
        #expect(!next.contains(.announceTakeover))
        #expect(try! #require(backOffSeconds(next)) <= reconnect.delay(afterFailures: 1))
    }

    @Test("a refused CONNACK is announced, ends the connection and backs off")
    func refused() {
        var lifecycle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 10)
        var random = SystemRandomNumberGenerator()
        _ = lifecycle.handle(.start, now: start, random: &random)
        _ = lifecycle.handle(.connectCallSent, now: start, random: &random)
        let actions = lifecycle.handle(.connack(reasonCode: 0x87, sessionPresent: false, reason: "not authorized"), now: start, random: &random)
        #expect(actions.prefix(2) == [.announceRefused(reason: "not authorized"), .connectionEnded(reason: "refused: not authorized")])
        #expect(backOffSeconds(actions) != nil)
    }

    @Test("stopping disconnects normally only when connected, and nothing happens after")
    func stop() {
        var lifecycle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 10)
        var random = SystemRandomNumberGenerator()
        _ = lifecycle.handle(.start, now: start, random: &random)
        _ = lifecycle.handle(.connectCallSent, now: start, random: &random)
        _ = lifecycle.handle(.connack(reasonCode: 0, sessionPresent: true, reason: ""), now: start, random: &random)
        #expect(lifecycle.handle(.stop, now: start, random: &random) == [.disconnectAndStop])
        #expect(lifecycle.handle(.tick, now: start + .seconds(100), random: &random).isEmpty)
        var idle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 10)
        #expect(idle.handle(.stop, now: start, random: &random).isEmpty)
    }
}
