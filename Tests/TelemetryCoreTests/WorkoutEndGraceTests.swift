import Testing

@testable import TelemetryCore

/// Items of Core Motion fidelity for workout sessions: a state change without an activity type,
/// and the batch that arrives after the end (``WorkoutEndGrace``, access control, pipeline).
@Suite("Workout session end: activity type and end grace")
struct WorkoutEndGraceTests {
    typealias F = AccessFixtures

    private let ultra = DeviceID("watch-ultra-1")!
    private static let start = 1_700_000_000.0

    private func control(grace: Double = 2) -> AccessControl {
        let registry = DeviceRegistry(isOpen: false, devices: [ultra: [.submersionShallow, .motionBatched, .motionDevice]])
        var access = AccessControl(policy: AccessPolicy(registry: registry, capabilities: F.table), sessionEndGrace: grace)
        _ = access.admit(.hello, from: ultra, update: .hello(F.ultra2, retained: false), receivedAt: 0)
        return access
    }

    private func workout(_ access: inout AccessControl, _ state: WorkoutState, _ type: String? = "baseball", date: Double, at: Double) {
        let decision = access.admit(.workout, from: ultra, update: .workout(WorkoutEvent(state: state, activityType: type, date: date)), receivedAt: at)
        #expect(decision.verdict.isAllowed)
    }

    // MARK: Activity type

    @Test("ended and paused without activityType decode and validate; running without it is invalid")
    func activityTypeOnlyOnRunning() throws {
        let ended = try FrameDecoder.decodeJSON(Array(#"{"state":"ended","date":1700000060}"#.utf8), stream: .workout).get()
        #expect(ended == .workout(WorkoutEvent(state: .ended, activityType: nil, date: 1_700_000_060), sequence: nil))
        #expect(FrameValidator.validate(ended) == nil)
        let paused = try FrameDecoder.decodeJSON(Array(#"{"state":"paused","date":1700000030}"#.utf8), stream: .workout).get()
        #expect(FrameValidator.validate(paused) == nil)
        let running = try FrameDecoder.decodeJSON(Array(#"{"state":"running","date":1700000000}"#.utf8), stream: .workout).get()
        let problem = try #require(FrameValidator.validate(running))
        #expect(problem.reason == .missingField)
        #expect(problem.detail.hasPrefix("activityType: missing"))
        // A type of the wrong JSON type stays invalid on every state.
        #expect(throws: PayloadProblem.self) {
            try FrameDecoder.decodeJSON(Array(#"{"state":"ended","activityType":3,"date":1}"#.utf8), stream: .workout).get()
        }
    }

    @Test("an end without activityType ends the session it belongs to and keeps its type")
    func endWithoutTypeEndsSession() {
        var access = control(grace: 0)
        workout(&access, .running, "tennis", date: Self.start, at: 10)
        workout(&access, .ended, nil, date: Self.start + 60, at: 70)
        #expect(access.state(of: ultra)?.workout == WorkoutEvent(state: .ended, activityType: "tennis", date: Self.start + 60))
        #expect(access.admit(.batchedAccelerometer, from: ultra, receivedAt: 71).verdict.code == .noActiveWorkout)
    }

    @Test("the swing deriver keeps the session's type across a typeless pause, so a resume is no new workout")
    func typelessPauseKeepsCounts() {
        var swing = SwingDeriver(configuration: SwingConfiguration())
        let context = DerivationContext(device: ultra, receivedAt: 1)
        _ = swing.receive(.workout(WorkoutEvent(state: .running, activityType: "tennis", date: 1), sequence: nil), context: context)
        _ = swing.receive(.workout(WorkoutEvent(state: .paused, activityType: nil, date: 2), sequence: nil), context: context)
        #expect(swing.activityType == "tennis")
        #expect(swing.sessionUnfinished)
        _ = swing.receive(.workout(WorkoutEvent(state: .running, activityType: "tennis", date: 3), sequence: nil), context: context)
        #expect(!swing.sessionUnfinished)
    }

    // MARK: End grace

    @Test("batched frames arriving within the grace after the end pass, the limit included; later ones fail")
    func graceBoundary() {
        var access = control(grace: 2)
        workout(&access, .running, date: Self.start, at: 100)
        workout(&access, .ended, nil, date: Self.start + 60, at: 160)
        // Samples after the end on the device's clock: only the grace can admit them.
        let late = (first: 1_000_000.0, last: 1_000_001.0)
        #expect(access.admit(.batchedAccelerometer, from: ultra, receivedAt: 160.2, batchTimestamps: late).verdict.isAllowed)
        #expect(access.admit(.batchedDeviceMotion, from: ultra, receivedAt: 162, batchTimestamps: late).verdict.isAllowed, "exactly at the limit")
        let refused = access.admit(.batchedAccelerometer, from: ultra, receivedAt: 162.001, batchTimestamps: late)
        #expect(refused.verdict.code == .noActiveWorkout)
        #expect(access.admit(.batchedAccelerometer, from: ultra, receivedAt: 163, batchTimestamps: late).verdict.code == .noActiveWorkout)
    }

    @Test("the finish is due once, strictly after the grace; a batch within the grace comes before it")
    func finishAfterGrace() {
        var access = control(grace: 2)
        workout(&access, .running, date: Self.start, at: 100)
        #expect(access.takeDueSessionFinishes(now: 200).isEmpty, "a running session owes no finish")
        workout(&access, .paused, nil, date: Self.start + 60, at: 160)
        #expect(access.takeDueSessionFinishes(now: 161).isEmpty)
        #expect(access.takeDueSessionFinishes(now: 162).isEmpty, "exactly at the limit a batch may still arrive")
        let within = access.admit(.batchedAccelerometer, from: ultra, receivedAt: 161.5, batchTimestamps: (5, 6))
        #expect(within.verdict.isAllowed && !within.finishesSession, "the tick finishes it")
        #expect(access.takeDueSessionFinishes(now: 162.5) == [ultra])
        #expect(access.takeDueSessionFinishes(now: 163).isEmpty, "once")
    }

    @Test("a resume within the grace cancels the finish; a pause then an end keeps the pause as the end")
    func resumeCancelsFinish() {
        var access = control(grace: 2)
        workout(&access, .running, date: Self.start, at: 100)
        workout(&access, .paused, nil, date: Self.start + 10, at: 110)
        workout(&access, .running, date: Self.start + 11, at: 111)
        #expect(access.takeDueSessionFinishes(now: 120).isEmpty)
        workout(&access, .paused, nil, date: Self.start + 20, at: 120)
        workout(&access, .ended, nil, date: Self.start + 30, at: 130)
        // Measured from the pause: 11 s later no grace is left.
        #expect(access.admit(.batchedAccelerometer, from: ultra, receivedAt: 131, batchTimestamps: nil).verdict.code == .noActiveWorkout)
        #expect(access.takeDueSessionFinishes(now: 131) == [ultra])
    }

    @Test("a batch after the grace whose samples predate the end on the device clock passes and finishes the session again")
    func predatesEnd() {
        var access = control(grace: 2)
        // Boot at start − 1000: timestamp t is date start − 1000 + t.
        workout(&access, .running, date: Self.start, at: 100)
        // The first batch (samples 1000…1001) arrives 1 s after its last sample: anchor ≈ boot − 1.
        #expect(access.admit(.batchedAccelerometer, from: ultra, receivedAt: 102, batchTimestamps: (1000, 1001)).verdict.isAllowed)
        workout(&access, .ended, nil, date: Self.start + 60, at: 160)  // end at timestamp 1060 (estimated ≤ 1061)
        #expect(access.takeDueSessionFinishes(now: 163) == [ultra])
        let backlog = access.admit(.batchedAccelerometer, from: ultra, receivedAt: 170, batchTimestamps: (1059, 1060))
        #expect(backlog.verdict.isAllowed)
        #expect(backlog.finishesSession, "the finish already ran: the derivers finish again after this batch")
        let after = access.admit(.batchedAccelerometer, from: ultra, receivedAt: 170, batchTimestamps: (1065, 1066))
        #expect(after.verdict.code == .noActiveWorkout)
        #expect(after.verdict.detail?.contains("ended") == true)
    }

    @Test("a reordered, older running frame after the end reopens nothing")
    func staleRunningIgnored() {
        var access = control(grace: 0)
        workout(&access, .running, date: Self.start, at: 100)
        workout(&access, .ended, nil, date: Self.start + 60, at: 160)
        workout(&access, .running, date: Self.start + 30, at: 161)  // stale: older than the end
        #expect(access.admit(.batchedAccelerometer, from: ultra, receivedAt: 162).verdict.code == .noActiveWorkout)
    }

    @Test("grace state: no end, no admission; equal-to-grace admits; finish needs more than the grace")
    func graceValue() {
        var grace = WorkoutEndGrace(grace: 2)
        #expect(grace.admission(receivedAt: 0, firstTimestamp: nil) == .refused)
        grace.apply(WorkoutEvent(state: .ended, activityType: nil, date: 1), receivedAt: 1)
        #expect(grace.admission(receivedAt: 1, firstTimestamp: nil) == .refused, "an end without a running session opens no grace")
        grace.apply(WorkoutEvent(state: .running, activityType: "tennis", date: 2), receivedAt: 2)
        #expect(grace.admission(receivedAt: 3, firstTimestamp: nil) == .running)
        grace.apply(WorkoutEvent(state: .ended, activityType: nil, date: 5), receivedAt: 5)
        #expect(grace.admission(receivedAt: 7, firstTimestamp: nil) == .withinGrace)
        #expect(grace.admission(receivedAt: 7.0001, firstTimestamp: nil) == .refused, "no clock anchor without a batch while running")
        let atLimit = grace.takeDueFinish(now: 7)
        #expect(!atLimit)
        let after = grace.takeDueFinish(now: 7.0001)
        #expect(after)
        #expect(WorkoutEndGrace(grace: -1).grace == 0)
    }
}
