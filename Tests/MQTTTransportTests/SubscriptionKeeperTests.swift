import Testing

@testable import MQTTTransport

@Suite("Subscription bookkeeping (pure)")
struct SubscriptionKeeperTests {
    private let start = ContinuousClock.now
    private let retryDelay: Duration = .seconds(8)

    @Test("a refused filter is sent again after the retry delay, only on a live connection, at its own QoS")
    func refusedFilterRetried() {
        var keeper = SubscriptionKeeper(retryDelay: retryDelay)
        let sendNow = keeper.request(["a/#", "b/#"], qos: .exactlyOnce, connected: true)
        #expect(sendNow)
        keeper.sent(mid: 7, filters: ["a/#", "b/#"], completion: nil)
        let settled = keeper.acknowledged(mid: 7, granted: [2, 0x87], now: start)
        #expect(settled?.refused.map(\.filter) == ["b/#"])
        #expect(settled?.refused.map(\.reasonCode) == [0x87])
        #expect(keeper.acknowledged(mid: 7, granted: [2, 0x87], now: start) == nil, "one SUBACK per SUBSCRIBE")

        #expect(keeper.due(now: start + .seconds(7.9), connected: true).isEmpty, "not before the delay")
        #expect(keeper.due(now: start + retryDelay, connected: false).isEmpty, "not without a connection")
        let due = keeper.due(now: start + retryDelay + .seconds(1), connected: true)
        #expect(due == [SubscriptionKeeper.Request(filters: ["b/#"], qos: .exactlyOnce)])
        #expect(keeper.due(now: start + .seconds(100), connected: true).isEmpty, "sent once; a new refusal schedules the next")
    }

    @Test("refused again: the retry moves to the delay after the latest refusal")
    func refusedAgain() {
        var keeper = SubscriptionKeeper(retryDelay: retryDelay)
        _ = keeper.request(["a/#"], qos: .atLeastOnce, connected: true)
        keeper.sent(mid: 1, filters: ["a/#"], completion: nil)
        _ = keeper.acknowledged(mid: 1, granted: [0x87], now: start)
        let first = keeper.due(now: start + retryDelay, connected: true)
        #expect(first.map(\.filters) == [["a/#"]])
        keeper.sent(mid: 2, filters: ["a/#"], completion: nil)
        _ = keeper.acknowledged(mid: 2, granted: [0x87], now: start + retryDelay)
        #expect(keeper.due(now: start + retryDelay + .seconds(4), connected: true).isEmpty)
        #expect(keeper.due(now: start + retryDelay * 2, connected: true).map(\.filters) == [["a/#"]])
    }

    @Test("a CONNACK without a session re-sends every filter asked for, one SUBSCRIBE per QoS, pending retries included once")
    func resendAll() {
        var keeper = SubscriptionKeeper(retryDelay: retryDelay)
        let sentOffline = keeper.request(["q1/a", "q1/b"], qos: .atLeastOnce, connected: false)
        #expect(!sentOffline, "offline: remembered, not sent")
        _ = keeper.request(["q0/a"], qos: .atMostOnce, connected: true)
        _ = keeper.request(["q1/a"], qos: .exactlyOnce, connected: true)
        keeper.sent(mid: 3, filters: ["q0/a"], completion: nil)
        _ = keeper.acknowledged(mid: 3, granted: [0x87], now: start)

        let requests = keeper.resendAll()
        #expect(requests == [
            SubscriptionKeeper.Request(filters: ["q0/a"], qos: .atMostOnce),
            SubscriptionKeeper.Request(filters: ["q1/a", "q1/b"], qos: .atLeastOnce),
        ], "a filter asked for twice keeps its first QoS")
        #expect(keeper.due(now: start + retryDelay, connected: true).isEmpty, "the refused filter went out with the others")
    }

    @Test("the end of a connection fails the subscribe calls awaiting a SUBACK, and their late SUBACK is ignored")
    func connectionEndFailsAwaiting() async {
        var keeper = SubscriptionKeeper(retryDelay: retryDelay)
        _ = keeper.request(["a/#"], qos: .atLeastOnce, connected: true)
        keeper.sent(mid: 4, filters: ["a/#"], completion: nil)
        await #expect(throws: MQTTTransportError.self, "the caller is failed") {
            try await withCheckedThrowingContinuation { (caller: CheckedContinuation<Void, any Error>) in
                keeper.sent(mid: 5, filters: ["b/#"], completion: caller)
                let failed = keeper.connectionEnded()
                #expect(failed.count == 1, "only the caller's SUBSCRIBE has someone waiting")
                for completion in failed { completion.resume(throwing: MQTTTransportError(.connectionLost, "gone")) }
            }
        }
        #expect(keeper.acknowledged(mid: 5, granted: [1], now: start) == nil)
        #expect(keeper.acknowledged(mid: 4, granted: [1], now: start) == nil)
    }

    @Test("filters come and go: a removed filter is neither re-sent nor retried; a resend is grouped by QoS and identifier in batches of 500")
    func removeAndBatch() {
        var keeper = SubscriptionKeeper(retryDelay: retryDelay)
        _ = keeper.request(["disc/+/hello", "disc/+/status"], qos: .atLeastOnce, options: SubscriptionOptions(identifier: 1), connected: true)
        let devices = (0..<1_201).map { "dev/\($0)/#" }
        _ = keeper.request(devices, qos: .atLeastOnce, options: SubscriptionOptions(identifier: 2), connected: true)
        #expect(keeper.count == 1_203)
        keeper.sent(mid: 9, filters: ["dev/0/#", "dev/1/#"], completion: nil)
        #expect(keeper.pending == 1)
        let settled = keeper.acknowledged(mid: 9, granted: [1, 0x87], now: start)
        #expect(settled?.granted == ["dev/0/#"] && settled?.refused.map(\.filter) == ["dev/1/#"])
        #expect(keeper.remove(["dev/1/#", "dev/2/#", "never/asked"], connected: true) == ["dev/1/#", "dev/2/#"], "only held filters are unsubscribed")
        #expect(keeper.due(now: start + retryDelay, connected: true).isEmpty, "a removed refusal is not retried")
        #expect(keeper.remove(["dev/3/#"], connected: false).isEmpty, "offline: nothing to send, forgotten all the same")

        let requests = keeper.resendAll()
        #expect(requests.map(\.options.identifier) == [1, 2, 2, 2])
        #expect(requests.map(\.filters.count) == [2, 500, 500, 198])
        #expect(requests[1].filters.first == "dev/0/#" && !requests.flatMap(\.filters).contains("dev/2/#"), "first-asked order, removed ones left out")
    }

    @Test("a kept session: only the filters asked for while disconnected, or whose SUBACK the connection's end cut off, are sent; those given up meanwhile are unsubscribed")
    func resumeKeptSession() {
        var keeper = SubscriptionKeeper(retryDelay: retryDelay)
        _ = keeper.request(["disc/+/hello", "dev/a/#", "dev/b/#"], qos: .atLeastOnce, connected: true)
        keeper.sent(mid: 1, filters: ["disc/+/hello", "dev/a/#", "dev/b/#"], completion: nil)
        _ = keeper.acknowledged(mid: 1, granted: [1, 1, 1], now: start)
        _ = keeper.request(["dev/c/#"], qos: .atLeastOnce, connected: true)
        keeper.sent(mid: 2, filters: ["dev/c/#"], completion: nil)
        #expect(keeper.connectionEnded().isEmpty)
        // While disconnected: one device comes, one goes, one comes and goes again.
        #expect(keeper.request(["dev/d/#", "dev/e/#"], qos: .atLeastOnce, connected: false) == false)
        #expect(keeper.remove(["dev/a/#", "dev/e/#"], connected: false).isEmpty)
        let (subscribe, unsubscribe) = keeper.resume()
        #expect(Set(subscribe.flatMap(\.filters)) == ["dev/c/#", "dev/d/#"], "the cut-off SUBSCRIBE and the new device")
        #expect(unsubscribe == ["dev/a/#", "dev/e/#"], "the kept session may hold what was given up")
        #expect(keeper.resume().subscribe.isEmpty && keeper.resume().unsubscribe.isEmpty, "sent once")
        // Given up offline, then asked for again before the connection came back: only subscribed.
        _ = keeper.remove(["dev/b/#"], connected: false)
        _ = keeper.request(["dev/b/#"], qos: .atLeastOnce, connected: false)
        #expect(keeper.resume().unsubscribe.isEmpty)
        // No session kept after all: everything again, and nothing of the above left over.
        _ = keeper.request(["dev/f/#"], qos: .atLeastOnce, connected: false)
        #expect(keeper.resendAll().flatMap(\.filters).count == 5)
        #expect(keeper.resume().subscribe.isEmpty)
    }
}
