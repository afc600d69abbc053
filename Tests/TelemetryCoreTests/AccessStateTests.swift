import Testing

@testable import TelemetryCore

@Suite("Access: per-device state from hello, authorization and workout frames")
struct AccessStateTests {
    typealias F = AccessFixtures

    private func authorization(_ status: AuthorizationStatus, _ date: Double) -> AuthorizationChange {
        AuthorizationChange(status: status, date: date)
    }

    @Test("the latest hello wins and its authorization applies")
    func helloWins() {
        var state = DeviceAccessState()
        #expect(state.apply(hello: F.series9, retained: false) == .applied)
        #expect(state.descriptor == F.series9)
        #expect(state.authorization == .authorized)
        #expect(state.authorizationSource == .hello)
        #expect(state.apply(hello: F.series9, retained: false) == .unchanged)
        let updated = F.watch("Apple Watch Series 9", "10.2", authorization: .denied)
        #expect(state.apply(hello: updated, retained: false) == .applied)
        #expect(state.descriptor == updated)
        #expect(state.authorization == .denied)
    }

    @Test("authorization frames: newer applies, older is stale")
    func authorizationByDate() {
        var state = DeviceAccessState()
        #expect(state.apply(authorization: authorization(.denied, 100)) == .applied)
        #expect(state.apply(authorization: authorization(.authorized, 200)) == .applied)
        #expect(state.apply(authorization: authorization(.denied, 150)) == .stale)
        #expect(state.authorization == .authorized)
        #expect(state.authorizationSource == .authorizationFrame(date: 200))
        #expect(state.apply(authorization: authorization(.authorized, 300)) == .unchanged)
        #expect(state.authorizationFrameDate == 300)
    }

    @Test(
        "equal dates: the more restrictive status wins, whatever the arrival order",
        arguments: [
            (AuthorizationStatus.authorized, AuthorizationStatus.denied, AuthorizationStatus.denied),
            (.denied, .authorized, .denied), (.notDetermined, .restricted, .restricted), (.restricted, .notDetermined, .restricted),
            (.authorized, .notDetermined, .notDetermined), (.denied, .restricted, .denied),
        ])
    func equalDates(_ first: AuthorizationStatus, _ second: AuthorizationStatus, _ winner: AuthorizationStatus) {
        var state = DeviceAccessState()
        state.apply(authorization: authorization(first, 500))
        state.apply(authorization: authorization(second, 500))
        #expect(state.authorization == winner)
        // The same frame again changes nothing.
        #expect(state.apply(authorization: authorization(winner, 500)) == .unchanged)
    }

    @Test("a live hello overrides an authorization frame; an older frame stays stale afterwards")
    func liveHelloAfterFrame() {
        var state = DeviceAccessState()
        state.apply(authorization: authorization(.denied, 100))
        #expect(state.apply(hello: F.series9, retained: false) == .applied)
        #expect(state.authorization == .authorized)
        // A duplicate of the old frame (same date) does not undo the newer hello.
        #expect(state.apply(authorization: authorization(.denied, 100)) == .stale)
        #expect(state.apply(authorization: authorization(.denied, 90)) == .stale)
        #expect(state.authorization == .authorized)
        #expect(state.apply(authorization: authorization(.denied, 101)) == .applied)
        #expect(state.authorization == .denied)
    }

    @Test("a retained hello (replayed at subscription) sets the authorization only when none is known")
    func retainedHello() {
        var fresh = DeviceAccessState()
        #expect(fresh.apply(hello: F.watch("Apple Watch Series 9", authorization: .denied), retained: true) == .applied)
        #expect(fresh.authorization == .denied)

        var seen = DeviceAccessState()
        seen.apply(authorization: authorization(.authorized, 100))
        let old = F.watch("Apple Watch Series 9", authorization: .denied)
        #expect(seen.apply(hello: old, retained: true) == .applied)  // the descriptor is new
        #expect(seen.descriptor == old)
        #expect(seen.authorization == .authorized)
        #expect(seen.apply(hello: old, retained: true) == .stale)
        #expect(seen.authorization == .authorized)
    }

    @Test("workout frames: latest by date; equal dates resolve by lifecycle order")
    func workoutOrdering() {
        func event(_ state: WorkoutState, _ date: Double, _ activity: String = "tennis") -> WorkoutEvent {
            WorkoutEvent(state: state, activityType: activity, date: date)
        }
        var state = DeviceAccessState()
        #expect(!state.isWorkoutRunning)
        #expect(state.apply(workout: event(.running, 10)) == .applied)
        #expect(state.isWorkoutRunning)
        #expect(state.apply(workout: event(.ended, 5)) == .stale)
        #expect(state.isWorkoutRunning)
        #expect(state.apply(workout: event(.paused, 20)) == .applied)
        #expect(!state.isWorkoutRunning)
        #expect(state.apply(workout: event(.running, 20)) == .stale)  // equal date: paused outranks running
        #expect(state.apply(workout: event(.ended, 20)) == .applied)
        #expect(state.apply(workout: event(.ended, 20)) == .unchanged)
        #expect(state.apply(workout: event(.running, 30, "baseball")) == .applied)
        #expect(state.workout == event(.running, 30, "baseball"))
        // Equal date and state: the greater activity name wins in either order.
        var a = DeviceAccessState()
        a.apply(workout: event(.running, 40, "baseball"))
        a.apply(workout: event(.running, 40, "tennis"))
        var b = DeviceAccessState()
        b.apply(workout: event(.running, 40, "tennis"))
        b.apply(workout: event(.running, 40, "baseball"))
        #expect(a == b)
        #expect(a.workout?.activityType == "tennis")
    }
}
