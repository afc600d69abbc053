import Ownership
import Testing

@testable import TelemetryGateway

/// The broker's testimony on an earlier run's outputs: pending until the backlog mark, then
/// received (echoed) or never received; unknown when the mark never came or past its bound.
@Suite("Broker testimony")
struct BrokerTestimonyTests {
    static func echo(_ id: String) -> [UInt8] { Array(#"{"deviceId":"w-1","eventId":"\#(id)","date":1}"#.utf8) }
    static func identity(_ id: String) -> OutputIdentity { OutputIdentity(topic: "gateway/w-1/connection", eventID: id) }

    @Test("pending before the mark; after it an echoed output was received, another never; echoes after the mark count for nothing")
    func verdicts() {
        let testimony = BrokerTestimony()
        testimony.heard(topic: "gateway/w-1/connection", payload: Self.echo("a"))
        testimony.heard(topic: "gateway/w-1/connection", payload: Array("{}".utf8))
        #expect(testimony.verdict(on: Self.identity("a")) == .pending)
        #expect(!testimony.isComplete)
        testimony.complete(delivered: true)
        testimony.heard(topic: "gateway/w-1/connection", payload: Self.echo("b"))
        #expect(testimony.verdict(on: Self.identity("a")) == .received)
        #expect(testimony.verdict(on: Self.identity("b")) == .neverReceived, "the backlog ended at the mark")
        #expect(testimony.verdict(on: OutputIdentity(topic: "gateway/w-2/connection", eventID: "a")) == .neverReceived, "the key is the topic and the event id")
    }

    @Test("no mark: what was echoed was received, the rest unknown")
    func noMark() {
        let testimony = BrokerTestimony()
        testimony.heard(topic: "gateway/w-1/connection", payload: Self.echo("a"))
        testimony.complete(delivered: false)
        #expect(testimony.verdict(on: Self.identity("a")) == .received)
        #expect(testimony.verdict(on: Self.identity("b")) == .unknown)
    }

    @Test("past its bound in bytes the testimony keeps nothing and can say nothing")
    func bound() {
        let testimony = BrokerTestimony()
        let topic = "gateway/w-1/" + String(repeating: "x", count: 4096)
        // Each echo costs more than its topic: 4,096 more bytes a time passes the bound.
        for n in 0...(BrokerTestimony.maximumBytes / 4096 + 1) {
            testimony.heard(topic: topic, payload: Self.echo("e\(n)"))
        }
        testimony.complete(delivered: true)
        #expect(testimony.verdict(on: OutputIdentity(topic: topic, eventID: "e0")) == .unknown)
    }
}
