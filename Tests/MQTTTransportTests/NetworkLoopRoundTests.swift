import Glibc
import Testing

@testable import MQTTTransport

@Suite("Network loop round (pure)")
struct NetworkLoopRoundTests {
    private let readable = Int16(POLLIN)
    private let writable = Int16(POLLOUT)

    @Test("coalescing checks the socket before it pauses only after a read, never before CONNACK or when off")
    func coalescingWait() {
        #expect(NetworkLoopRound.wait(readSincePause: true, coalescing: 0.01, connecting: false) == .checkThenPause)
        #expect(NetworkLoopRound.wait(readSincePause: false, coalescing: 0.01, connecting: false) == .block)
        #expect(NetworkLoopRound.wait(readSincePause: true, coalescing: 0, connecting: false) == .block)
        #expect(NetworkLoopRound.wait(readSincePause: true, coalescing: 0.01, connecting: true) == .block)
    }

    @Test("waits for writing only while libmosquitto has something to write")
    func interest() {
        #expect(NetworkLoopRound.interest(wantWrite: false) == Int16(POLLIN))
        #expect(NetworkLoopRound.interest(wantWrite: true) == Int16(POLLIN | POLLOUT))
    }

    @Test("reads what arrived, writes when writable, and runs the keepalive every round, last")
    func connected() {
        #expect(NetworkLoopRound.calls(socketEvents: 0, woken: false, connecting: false) == [.housekeeping])
        #expect(NetworkLoopRound.calls(socketEvents: readable, woken: false, connecting: false) == [.read, .housekeeping])
        #expect(NetworkLoopRound.calls(socketEvents: writable, woken: false, connecting: false) == [.write, .housekeeping])
        #expect(
            NetworkLoopRound.calls(socketEvents: readable | writable, woken: false, connecting: false) == [.read, .write, .housekeeping])
    }

    @Test("a wake-up writes what another thread queued, though the socket was not asked about writing")
    func woken() {
        #expect(NetworkLoopRound.calls(socketEvents: 0, woken: true, connecting: false) == [.write, .housekeeping])
        #expect(NetworkLoopRound.calls(socketEvents: readable, woken: true, connecting: false) == [.read, .write, .housekeeping])
    }

    @Test("a hang-up or an error on the socket is read, so libmosquitto meets the end and reports it")
    func endOfConnection() {
        for events in [Int16(POLLHUP), Int16(POLLERR), Int16(POLLNVAL), Int16(POLLHUP | POLLERR)] {
            #expect(NetworkLoopRound.calls(socketEvents: events, woken: false, connecting: false) == [.read, .housekeeping])
        }
        #expect(
            NetworkLoopRound.calls(socketEvents: Int16(POLLOUT | POLLERR), woken: false, connecting: false) == [.read, .write, .housekeeping])
    }

    @Test("before CONNACK a writable round also drives a TLS handshake that waits to write")
    func handshake() {
        #expect(NetworkLoopRound.calls(socketEvents: writable, woken: false, connecting: true) == [.write, .handshake, .housekeeping])
        #expect(NetworkLoopRound.calls(socketEvents: 0, woken: true, connecting: true) == [.write, .handshake, .housekeeping])
        #expect(NetworkLoopRound.calls(socketEvents: readable, woken: false, connecting: true) == [.read, .housekeeping])
    }
}
