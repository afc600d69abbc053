import CoreMetrics
import Foundation
import Locking
import MQTTTransport
import Testing

@testable import TelemetryGateway

/// What the subscriber's acknowledgements wait for, clustered: every opened frame settled;
/// a fenced output or the bound refuses them (the connection closes without its PUBACKs).
@Suite("Acknowledgements after outputs")
struct AcknowledgementsAfterOutputsTests {
    private func gate(bound: Duration = .seconds(30)) -> AcknowledgementsAfterOutputs {
        AcknowledgementsAfterOutputs(bound: bound, factory: NOOPMetricsHandler.instance)
    }

    /// Asks the gate on a thread of its own until it decides, as the network thread does
    /// (ClientCore.readGroup); true when the group may be acknowledged.
    private func ask(_ gate: AcknowledgementsAfterOutputs, groupReadAt: ContinuousClock.Instant? = nil) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                let readAt = groupReadAt ?? ContinuousClock.now
                var decision = AcknowledgementDecision.undecided
                while decision == .undecided { decision = gate.decide(groupReadAt: readAt, waitingAtMost: .milliseconds(100)) }
                continuation.resume(returning: decision == .acknowledge)
            }.start()
        }
    }

    @Test("nothing opened, or everything opened settled: acknowledged at once")
    func settledGroup() async {
        let gate = gate()
        #expect(await ask(gate))
        gate.opened(1)
        gate.opened(2)
        gate.settled(2, fenced: false)
        gate.settled(1, fenced: false)
        #expect(await ask(gate))
    }

    @Test("a frame settled while the network thread waits wakes it, long before the bound")
    func settleWakesTheWait() async {
        // With a bound of an hour, a wait that was not woken would hang the test (its time limit
        // fails it); one woken by the settle returns true.
        let gate = gate(bound: .seconds(3600))
        gate.opened(7)
        async let answer = ask(gate)
        gate.settled(7, fenced: false)
        #expect(await answer)
    }

    @Test("an output fenced: the group is refused, and so is the rest of the connection until it ends")
    func fencedRefuses() async {
        let gate = gate(bound: .seconds(3600))
        gate.opened(1)
        gate.opened(2)
        gate.settled(1, fenced: true)
        #expect(await ask(gate) == false)
        gate.settled(2, fenced: false)
        #expect(await ask(gate) == false, "the connection that lost a frame stays refused")
        gate.connectionEvent(.disconnected(reason: "closed"))
        gate.opened(3)
        gate.settled(3, fenced: false)
        #expect(await ask(gate))
    }

    @Test("the publisher's connection lost while a group waits: refused at once (the broker may be dead without the waiting subscriber seeing it); a group read after the loss waits as before", .timeLimit(.minutes(1)))
    func brokerLostRefuses() async {
        // With a bound of an hour, a wait the loss did not end would hang the test.
        let gate = gate(bound: .seconds(3600))
        gate.opened(1)
        let readAt = ContinuousClock.now
        async let answer = ask(gate, groupReadAt: readAt)
        gate.brokerLost()
        #expect(await answer == false)
        gate.connectionEvent(.disconnected(reason: "closed"))
        // A later group on the new connection: the loss before it does not refuse it.
        gate.opened(2)
        async let later = ask(gate)
        gate.settled(2, fenced: false)
        #expect(await later)
    }

    @Test("outputs not published within the bound: refused")
    func boundRefuses() async {
        let gate = gate(bound: .milliseconds(50))
        gate.opened(1)
        #expect(await ask(gate) == false)
    }

    @Test("a frame opened on an ended connection is the broker's again: it is not waited for, and its late settle changes nothing")
    func endedConnectionForgets() async {
        let gate = gate(bound: .seconds(3600))
        gate.opened(1)
        gate.connectionEvent(.disconnected(reason: "lost"))
        #expect(await ask(gate))
        gate.settled(1, fenced: true)
        #expect(await ask(gate), "a late fenced settle of the old connection refuses nothing")
    }

    @Test("a sequence never opened (a replayed frame) settles nothing")
    func unopenedSequenceIgnored() async {
        let gate = gate(bound: .milliseconds(50))
        gate.opened(5)
        gate.settled(4, fenced: false)
        #expect(await ask(gate) == false)
    }

    @Test("a stopping client is let through at once, as without a gate")
    func interruptLetsThrough() async {
        let gate = gate(bound: .seconds(3600))
        gate.opened(1)
        async let answer = ask(gate)
        gate.interrupt()
        #expect(await answer)
    }

    @Test("a frame's release settles it once its outputs are published, fenced when one was withheld as fenced")
    func releaseCountdownCarriesFenced() {
        let outcomes = LockedState<[Bool]>([])
        let countdown = ReleaseCountdown(parts: 2, onSettled: { fenced in outcomes.withLock { $0.append(fenced) } })
        countdown.partFenced()
        #expect(outcomes.withLock { $0 }.isEmpty)
        countdown.partDone()
        #expect(outcomes.withLock { $0 } == [true])
        let clean = ReleaseCountdown(parts: 1, onSettled: { fenced in outcomes.withLock { $0.append(fenced) } })
        clean.partDone()
        #expect(outcomes.withLock { $0 } == [true, false])
        _ = ReleaseCountdown(parts: 0, onSettled: { fenced in outcomes.withLock { $0.append(fenced) } })
        #expect(outcomes.withLock { $0 } == [true, false, false], "a frame without outputs is settled at once")
    }
}
