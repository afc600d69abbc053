import TelemetryCore
import Testing

@testable import TelemetryGateway

@Suite("Admission of recorder queries: per-requester limit, shared capacity, payload cap, refusal backlog")
struct RecorderQueryAdmissionTests {
    private func admission(perRequester: Int = 2, capacity: Int = 5, maximumPayloadBytes: Int = 100, refusalCapacity: Int = 3) -> RecorderQueryAdmission {
        RecorderQueryAdmission(perRequester: perRequester, capacity: capacity, maximumPayloadBytes: maximumPayloadBytes, refusalCapacity: refusalCapacity)
    }

    @Test("a requester gets its limit of queries queued or running; the next is refused tooManyQueries, others still get in")
    func perRequesterLimit() {
        var admission = admission()
        #expect(admission.admit(requester: "app-1", payloadBytes: 10) == .admitted)
        #expect(admission.admit(requester: "app-1", payloadBytes: 10) == .admitted)
        #expect(admission.admit(requester: "app-1", payloadBytes: 10) == .refused(.tooManyQueries))
        #expect(admission.admit(requester: "app-2", payloadBytes: 10) == .admitted)
        #expect(admission.pending == ["app-1": 2, "app-2": 1])
        #expect(admission.pendingTotal == 3)
        // One of app-1's queries is answered: it may ask again.
        admission.finished(requester: "app-1")
        #expect(admission.admit(requester: "app-1", payloadBytes: 10) == .admitted)
    }

    @Test("beyond the shared capacity every requester is refused busy until a query finishes")
    func sharedCapacity() {
        var admission = admission(perRequester: 10, capacity: 3)
        for requester in ["a", "b", "c"] { #expect(admission.admit(requester: requester, payloadBytes: 1) == .admitted) }
        #expect(admission.admit(requester: "d", payloadBytes: 1) == .refused(.busy))
        #expect(admission.admit(requester: "a", payloadBytes: 1) == .refused(.busy))
        admission.finished(requester: "b")
        #expect(admission.admit(requester: "d", payloadBytes: 1) == .admitted)
        #expect(admission.pendingTotal == 3)
    }

    @Test("a payload over the cap is refused payloadTooLarge, before the requester's or the queue's limits, and takes no place")
    func payloadCap() {
        var admission = admission(perRequester: 1, capacity: 1, maximumPayloadBytes: 100)
        #expect(admission.admit(requester: "a", payloadBytes: 101) == .refused(.payloadTooLarge))
        #expect(admission.pendingTotal == 0)
        #expect(admission.admit(requester: "a", payloadBytes: 100) == .admitted)
        #expect(admission.admit(requester: "a", payloadBytes: 5_000) == .refused(.payloadTooLarge))
        #expect(admission.admit(requester: "b", payloadBytes: 5_000) == .refused(.payloadTooLarge))
    }

    @Test("refusals waiting to be published are bounded: past the backlog a query is dropped, and sent refusals make room")
    func refusalBacklog() {
        var admission = admission(perRequester: 1, capacity: 10, refusalCapacity: 2)
        #expect(admission.admit(requester: "a", payloadBytes: 1) == .admitted)
        #expect(admission.admit(requester: "a", payloadBytes: 1) == .refused(.tooManyQueries))
        #expect(admission.admit(requester: "a", payloadBytes: 1) == .refused(.tooManyQueries))
        #expect(admission.admit(requester: "a", payloadBytes: 1) == .dropped)
        #expect(admission.refusalsWaiting == 2)
        admission.refusalSent()
        #expect(admission.admit(requester: "a", payloadBytes: 1) == .refused(.tooManyQueries))
        // Dropping does not touch the admitted query's place.
        #expect(admission.pending == ["a": 1])
    }

    @Test("an unnamed requester shares one place count; finishing more than was admitted changes nothing")
    func unnamedAndUnbalanced() {
        var admission = admission(perRequester: 1)
        #expect(admission.admit(requester: nil, payloadBytes: 1) == .admitted)
        #expect(admission.admit(requester: nil, payloadBytes: 1) == .refused(.tooManyQueries))
        admission.finished(requester: nil)
        admission.finished(requester: nil)
        admission.finished(requester: "never-admitted")
        #expect(admission.pending.isEmpty)
        #expect(admission.pendingTotal == 0)
        admission.refusalSent()
        admission.refusalSent()
        #expect(admission.refusalsWaiting == 0)
    }

    @Test("300 queries of one requester at once: its limit is admitted, the rest refused, the capacity never exceeded")
    func burst() {
        var admission = admission(perRequester: 4, capacity: 64, refusalCapacity: 1024)
        let verdicts = (0..<300).map { _ in admission.admit(requester: "app", payloadBytes: 40) }
        #expect(verdicts.filter { $0 == .admitted }.count == 4)
        #expect(verdicts.filter { $0 == .refused(.tooManyQueries) }.count == 296)
        #expect(admission.pendingTotal == 4)
    }
}
