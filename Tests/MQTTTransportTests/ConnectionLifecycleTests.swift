import Testing

@testable import MQTTTransport

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

    /// A life cycle with its first attempt under way (CONNECT sent, no CONNACK yet).
    private func attempting() -> (ConnectionLifecycle, SystemRandomNumberGenerator) {
        var lifecycle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 10)
        var random = SystemRandomNumberGenerator()
        _ = lifecycle.handle(.start, now: start, random: &random)
        _ = lifecycle.handle(.connectCallSent, now: start, random: &random)
        return (lifecycle, random)
    }

    @Test("an accepted CONNACK with the session kept sends only what changed in the subscriptions, then announces")
    func connectResumingSession() {
        var (lifecycle, random) = attempting()
        let actions = lifecycle.handle(.connack(reasonCode: 0, sessionPresent: true, reason: ""), now: start, random: &random)
        #expect(actions == [.resumeSubscriptions, .announceConnected(sessionPresent: true)])
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
        var random = JitterRandom(seed: 42)
        let ceiling = reconnect.delay(afterFailures: 5)
        let delays = (0..<1000).map { _ in reconnect.jitteredDelay(afterFailures: 5, using: &random) }
        #expect(delays.allSatisfy { $0 >= reconnect.initialDelay / 2 && $0 <= ceiling })
        // Spread over the whole range: each tenth of it gets some of the clients.
        let width = (ceiling - reconnect.initialDelay / 2) / 10
        let buckets = Set(delays.map { Int(($0 - reconnect.initialDelay / 2) / width) })
        #expect(buckets.count >= 10)
    }

    @Test("the client's own jitter source, seeded once per client as ClientCore does, spreads a thousand clients too")
    func clientJitterSpreads() {
        let ceiling = reconnect.delay(afterFailures: 5)
        let delays = (0..<1000).map { _ in
            var random = JitterRandom()
            return reconnect.jitteredDelay(afterFailures: 5, using: &random)
        }
        #expect(delays.allSatisfy { $0 >= reconnect.initialDelay / 2 && $0 <= ceiling })
        let width = (ceiling - reconnect.initialDelay / 2) / 10
        let buckets = Set(delays.map { Int(($0 - reconnect.initialDelay / 2) / width) })
        #expect(buckets.count >= 10)
        #expect(Set(delays).count > 990, "fresh seeds give (almost) distinct delays")
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
        var (lifecycle, random) = attempting()
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

@Suite("Connection life cycle: stop, receive maximum and the owner's hold (pure)")
struct ConnectionLifecycleStopTests {
    private let reconnect = MQTTClientConfiguration.Reconnect(initialDelay: 0.25, maximumDelay: 8)
    private let start = ContinuousClock.now

    /// A life cycle whose connect call went out at `start`.
    private func connecting() -> ConnectionLifecycle {
        var lifecycle = ConnectionLifecycle(reconnect: reconnect, connectTimeout: 10)
        var random = SystemRandomNumberGenerator()
        _ = lifecycle.handle(.start, now: start, random: &random)
        _ = lifecycle.handle(.connectCallSent, now: start, random: &random)
        return lifecycle
    }

    /// A life cycle whose CONNACK (session present) was accepted at `start`.
    private func connected() -> ConnectionLifecycle {
        var lifecycle = connecting()
        var random = SystemRandomNumberGenerator()
        _ = lifecycle.handle(.connack(reasonCode: 0, sessionPresent: true, reason: ""), now: start, random: &random)
        return lifecycle
    }

    @Test("a stop while connected is stepped through by the machine, ignores the connection's own reports, and ends stopped")
    func gracefulStop() {
        var lifecycle = connected()
        var random = SystemRandomNumberGenerator()
        let deadline = start + GracefulDisconnect.limit
        #expect(lifecycle.handle(.stop, now: start, random: &random) == [.disconnectAndStop])
        #expect(lifecycle.handle(.disconnectProgress(.queued(holdingSocket: true)), now: start, random: &random) == [.disconnect(.write(until: deadline))])
        // libmosquitto reports the DISCONNECT it wrote as a normal disconnect: no reconnect.
        #expect(lifecycle.handle(.disconnected(reasonCode: 0, reason: "normal disconnect"), now: start, random: &random).isEmpty)
        #expect(lifecycle.handle(.tick, now: start + .seconds(1), random: &random).isEmpty)
        #expect(lifecycle.handle(.disconnectProgress(.wrote(disconnectOut: true)), now: start, random: &random) == [.disconnect(.halfClose)])
        #expect(lifecycle.handle(.disconnectProgress(.halfClosed), now: start, random: &random) == [.disconnect(.read(until: deadline))])
        #expect(lifecycle.handle(.disconnectProgress(.timedOut), now: deadline, random: &random) == [.disconnect(.finished)])
        #expect(lifecycle.phase == .stopped)
        #expect(lifecycle.handle(.disconnectProgress(.readSome), now: deadline, random: &random).isEmpty)
    }

    @Test("after a protocol error the next attempts widen the receive maximum, until a connection ends otherwise")
    func receiveMaximum() {
        var lifecycle = connected()
        var random = SystemRandomNumberGenerator()
        var now = start
        func nextAttempt(after actions: [ConnectionLifecycle.Action]) -> [ConnectionLifecycle.Action] {
            guard case .backOff(let seconds, _)? = actions.last else { return [] }
            now += .seconds(seconds)
            return lifecycle.handle(.tick, now: now, random: &random)
        }
        let lost = lifecycle.handle(.connectionLost(reason: "protocol error", protocolError: true), now: now, random: &random)
        #expect(lost.contains(.connectionEnded(reason: "protocol error", wasConnected: true)))
        #expect(nextAttempt(after: lost) == [.connect(attempt: 1, widenedReceiveMaximum: true)])
        // A connect call that fails ends no connection: still widened.
        let failed = lifecycle.handle(.connectCallFailed(reason: "refused"), now: now, random: &random)
        #expect(nextAttempt(after: failed) == [.connect(attempt: 2, widenedReceiveMaximum: true)])
        _ = lifecycle.handle(.connectCallSent, now: now, random: &random)
        _ = lifecycle.handle(.connack(reasonCode: 0, sessionPresent: true, reason: ""), now: now, random: &random)
        let reset = lifecycle.handle(.connectionLost(reason: "reset"), now: now, random: &random)
        // A second report of the same loss is ignored and does not widen.
        #expect(lifecycle.handle(.connectionLost(reason: "protocol error", protocolError: true), now: now, random: &random).isEmpty)
        #expect(nextAttempt(after: reset) == [.connect(attempt: 1, widenedReceiveMaximum: false)])
    }

    @Test("only a connection whose CONNACK was accepted is reported as having been up")
    func wasConnected() {
        var attempt = connecting()
        var random = SystemRandomNumberGenerator()
        let actions = attempt.handle(.connectionLost(reason: "reset"), now: start, random: &random)
        #expect(actions.first == .connectionEnded(reason: "reset", wasConnected: false))

        var live = connected()
        let dropped = live.handle(.disconnected(reasonCode: 0x8B, reason: "server shutting down"), now: start, random: &random)
        #expect(dropped.first == .connectionEnded(reason: "server shutting down", wasConnected: true))
    }

    @Test("the hold after a takeover: on, only a connection another client took over (0x8E) waits for a release; a lost connection or another DISCONNECT backs off and reconnects")
    func holdsOnlyAfterTakeover() {
        var random = SystemRandomNumberGenerator()
        var lifecycle = connected()
        lifecycle.holdingAfterTakeover = true
        let lost = lifecycle.handle(.connectionLost(reason: "reset"), now: start, random: &random)
        #expect(lost.contains { if case .backOff = $0 { true } else { false } }, "a broker restart or a cut: reconnect")
        #expect(lifecycle.phase != .held)
        var other = connected()
        other.holdingAfterTakeover = true
        let shutdown = other.handle(.disconnected(reasonCode: 0x8B, reason: "server shutting down"), now: start, random: &random)
        #expect(!shutdown.contains(.announceHeld))
        var taken = connected()
        taken.holdingAfterTakeover = true
        let takeover = taken.handle(.disconnected(reasonCode: 0x8E, reason: "taken over"), now: start, random: &random)
        #expect(takeover.last == .announceHeld)
        #expect(taken.phase == .held)
        #expect(taken.handle(.tick, now: start + .seconds(3600), random: &random).isEmpty, "held until released")
        #expect(taken.handle(.release, now: start + .seconds(3600), random: &random) == [.connect(attempt: 1)])
    }

    @Test("the owner's hold: a loss while it is on waits for a release however long, a release while connected is not kept, the release connects, a stop ends the hold; off, the same loss backs off")
    func holdsReconnect() {
        var lifecycle = connected()
        var random = SystemRandomNumberGenerator()
        #expect(lifecycle.handle(.release, now: start, random: &random).isEmpty, "a release while connected does nothing")
        lifecycle.holding = true
        let actions = lifecycle.handle(.connectionLost(reason: "reset"), now: start, random: &random)
        #expect(actions == [.connectionEnded(reason: "reset", wasConnected: true), .announceHeld])
        #expect(lifecycle.phase == .held)
        #expect(lifecycle.handle(.disconnected(reasonCode: 0x8E, reason: "taken over"), now: start, random: &random).isEmpty)
        #expect(lifecycle.handle(.tick, now: start + .seconds(3600), random: &random).isEmpty, "reconnected without a release")
        #expect(lifecycle.handle(.release, now: start + .seconds(3600), random: &random) == [.connect(attempt: 1)])
        #expect(lifecycle.phase == .idle)
        // Held again (a failed attempt while the hold is on), then stopped.
        _ = lifecycle.handle(.connectCallSent, now: start + .seconds(3600), random: &random)
        #expect(lifecycle.handle(.connectCallFailed(reason: "refused"), now: start + .seconds(3600), random: &random) == [.announceHeld])
        #expect(lifecycle.handle(.stop, now: start + .seconds(3600), random: &random).isEmpty)
        #expect(lifecycle.phase == .stopped)
        #expect(lifecycle.handle(.release, now: start + .seconds(3600), random: &random).isEmpty)

        var open = connected()
        #expect(open.handle(.connectionLost(reason: "reset"), now: start, random: &random).contains { if case .backOff = $0 { true } else { false } }, "the hold off: a backoff")
    }
}
