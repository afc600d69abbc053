import Testing

@testable import MQTTTransport

@Suite("Graceful disconnect (pure)")
struct GracefulDisconnectTests {
    private let start = ContinuousClock.now
    private var deadline: ContinuousClock.Instant { start + GracefulDisconnect.limit }

    @Test("writes until the DISCONNECT is out, then half-closes and reads until the broker closes")
    func normalStop() {
        var stop = GracefulDisconnect(now: start)
        #expect(stop.deadline == start + .seconds(2))
        #expect(stop.handle(.queued(holdingSocket: true), now: start) == .write(until: deadline))
        // Acknowledgements of a burst are still queued ahead of the DISCONNECT: keep writing,
        // never reading (a packet read now would make libmosquitto drop the DISCONNECT).
        #expect(stop.handle(.wrote(disconnectOut: false), now: start + .milliseconds(10)) == .write(until: deadline))
        #expect(stop.handle(.wrote(disconnectOut: true), now: start + .milliseconds(20)) == .halfClose)
        #expect(stop.handle(.halfClosed, now: start + .milliseconds(20)) == .read(until: deadline))
        #expect(stop.handle(.readSome, now: start + .milliseconds(30)) == .read(until: deadline))
        #expect(stop.handle(.brokerClosed, now: start + .milliseconds(40)) == .finished)
    }

    @Test("a DISCONNECT that cannot be written by the bound is given up (the will may fire)")
    func writeBound() {
        var stop = GracefulDisconnect(now: start)
        _ = stop.handle(.queued(holdingSocket: true), now: start)
        #expect(stop.handle(.wrote(disconnectOut: false), now: deadline - .milliseconds(1)) == .write(until: deadline))
        #expect(stop.handle(.wrote(disconnectOut: false), now: deadline) == .gaveUp)

        var blocked = GracefulDisconnect(now: start)
        _ = blocked.handle(.queued(holdingSocket: true), now: start)
        #expect(blocked.handle(.timedOut, now: deadline) == .gaveUp, "a socket that never takes data")

        var failed = GracefulDisconnect(now: start)
        _ = failed.handle(.queued(holdingSocket: true), now: start)
        #expect(failed.handle(.writeFailed, now: start) == .gaveUp)
    }

    @Test("a broker that keeps the connection open after the DISCONNECT is left at the bound")
    func readBound() {
        var stop = GracefulDisconnect(now: start)
        _ = stop.handle(.queued(holdingSocket: true), now: start)
        _ = stop.handle(.wrote(disconnectOut: true), now: start)
        _ = stop.handle(.halfClosed, now: start)
        #expect(stop.handle(.readSome, now: deadline) == .finished, "still sending at the bound")

        var silent = GracefulDisconnect(now: start)
        _ = silent.handle(.queued(holdingSocket: true), now: start)
        _ = silent.handle(.wrote(disconnectOut: true), now: start)
        _ = silent.handle(.halfClosed, now: start)
        #expect(silent.handle(.timedOut, now: deadline) == .finished, "silent until the bound")
    }

    @Test("no connection to end finishes at once; without a held socket there is nothing to half-close")
    func shortCuts() {
        var none = GracefulDisconnect(now: start)
        #expect(none.handle(.notQueued, now: start) == .finished)

        var unheld = GracefulDisconnect(now: start)
        #expect(unheld.handle(.queued(holdingSocket: false), now: start) == .write(until: deadline))
        #expect(unheld.handle(.wrote(disconnectOut: true), now: start) == .finished)
    }
}
