#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import TelemetryCore

/// Bud hand-offs, the posture rule and nod/shake recognition on synthetic samples.
@Suite struct HeadphoneGestureAndPostureTests {
    @Test("a switch of the streaming bud is a hand-off; the first bud and default samples are not")
    func handoffs() {
        var detector = BudHandoffDetector()
        #expect(detector.receive(.default, timestamp: 1) == nil)
        #expect(detector.current == nil)
        #expect(detector.receive(.headphoneLeft, timestamp: 2) == nil)
        #expect(detector.receive(.headphoneLeft, timestamp: 3) == nil)
        #expect(detector.receive(.default, timestamp: 3.5) == nil)
        #expect(detector.receive(.headphoneRight, timestamp: 4) == BudHandoffDetector.Handoff(from: .headphoneLeft, to: .headphoneRight, timestamp: 4))
        #expect(detector.current == .headphoneRight)
        #expect(detector.receive(.headphoneLeft, timestamp: 5) == BudHandoffDetector.Handoff(from: .headphoneRight, to: .headphoneLeft, timestamp: 5))
    }

    // MARK: Posture

    private func feed(_ monitor: inout PostureMonitor, pitch: Double, from start: Double, to end: Double) -> [PostureMonitor.Event] {
        var events: [PostureMonitor.Event] = []
        var time = start
        while time < end - 1e-9 {
            if let event = monitor.receive(pitch: pitch, timestamp: time) { events.append(event) }
            time += 0.04
        }
        return events
    }

    @Test("head down past the angle for the duration reports headDown once, then upright past the hysteresis")
    func posture() throws {
        var monitor = PostureMonitor(angle: 20, duration: 30, hysteresis: 5)
        #expect(feed(&monitor, pitch: -10, from: 0, to: 5).isEmpty)
        #expect(feed(&monitor, pitch: -20, from: 5, to: 6).isEmpty, "exactly −angle is not past it")
        let down = feed(&monitor, pitch: -25, from: 6, to: 40)
        #expect(down.count == 1)
        let headDown = try #require(down.first)
        #expect(headDown.kind == .headDown)
        #expect(headDown.startTimestamp == 6)
        #expect(abs(headDown.timestamp - 36) < 1e-6)
        #expect(abs(headDown.duration - 30) < 1e-6)
        #expect(monitor.isHeadDown)
        #expect(feed(&monitor, pitch: -16, from: 40, to: 45).isEmpty, "inside the hysteresis band")
        let up = feed(&monitor, pitch: -15, from: 45, to: 46)
        #expect(up.count == 1)
        #expect(up.first?.kind == .upright)
        #expect(up.first?.startTimestamp == 6)
        #expect(abs((up.first?.duration ?? 0) - 39) < 1e-6)
        #expect(!monitor.isHeadDown)
    }

    @Test("coming up before the duration, or a reset, ends the episode without a report")
    func postureCancelled() {
        var monitor = PostureMonitor(angle: 20, duration: 30, hysteresis: 5)
        #expect(feed(&monitor, pitch: -25, from: 0, to: 29).isEmpty)
        #expect(feed(&monitor, pitch: -19, from: 29, to: 29.1).isEmpty)
        #expect(feed(&monitor, pitch: -25, from: 29.1, to: 58).isEmpty, "the timer restarted")
        monitor.reset()
        #expect(feed(&monitor, pitch: -25, from: 58, to: 70).isEmpty)
        #expect(!monitor.isHeadDown)
    }

    // MARK: Gestures

    /// Samples of a head oscillating about `axis` ("pitch" or "yaw") with amplitude `degrees` at `hertz`.
    private func oscillation(_ axis: String, degrees: Double, hertz: Double, from start: Double, duration: Double) -> [(Double, Vector3, Vector3)] {
        let gravity = Vector3(x: 0, y: 0, z: -1)
        return (0..<Int(duration * 25)).map { index in
            let time = Double(index) / 25
            let rate = degrees * Double.pi / 180 * 2 * Double.pi * hertz * cos(2 * Double.pi * hertz * time)
            // Yaw is about −gravity = +Z here; pitch about X.
            let rotation = axis == "pitch" ? Vector3(x: rate, y: 0, z: 0) : Vector3(x: 0, y: 0, z: rate)
            return (start + time, rotation, gravity)
        }
    }

    private func detect(_ samples: [(Double, Vector3, Vector3)], detector: inout GestureDetector) -> [GestureDetector.Gesture] {
        samples.compactMap { detector.receive(timestamp: $0.0, rotationRate: $0.1, gravity: $0.2) }
    }

    private func detector() -> GestureDetector {
        GestureDetector(rotationRate: 1, swings: 3, swingGap: 0.8, dominance: 2)
    }

    @Test("three alternating pitch swings are one nod; yaw swings one shake", arguments: [("pitch", GestureDetector.Gesture.Kind.nod), ("yaw", .shake)])
    func gesture(axis: String, kind: GestureDetector.Gesture.Kind) throws {
        var detector = detector()
        let gestures = detect(oscillation(axis, degrees: 15, hertz: 2, from: 100, duration: 1.5), detector: &detector)
        #expect(gestures.count == 1, "one report per gesture, however many swings")
        let gesture = try #require(gestures.first)
        #expect(gesture.kind == kind)
        #expect(gesture.startTimestamp == 100)
        // Swings start where |rate| first reaches 1 rad/s with a new sign: 0, then past 0.15 s, then past 0.40 s.
        #expect(gesture.timestamp > 100.39 && gesture.timestamp < 100.45, "\(gesture.timestamp)")
        #expect(gesture.swings == 3)
        #expect(gesture.peakRotationRate > 3 && gesture.peakRotationRate < 3.4)
    }

    @Test("the vertical comes from gravity: a shake with the head tilted is still a shake")
    func shakeWithTiltedHead() {
        var detector = detector()
        // Head pitched 30°: up (−gravity) in the device frame is (0, sin 30°, cos 30°), so a yaw
        // rate about it shows up on Y and Z, none on X.
        let up = Vector3(x: 0, y: 0.5, z: 0.866025404)
        let samples = oscillation("yaw", degrees: 15, hertz: 2, from: 0, duration: 1.5).map { sample in
            (sample.0, up * sample.1.z, -up)
        }
        #expect(detect(samples, detector: &detector).map(\.kind) == [.shake])
    }

    @Test("slow, small, one-way or mixed movements are not gestures")
    func nonGestures() {
        var detector = detector()
        #expect(detect(oscillation("pitch", degrees: 3, hertz: 1, from: 0, duration: 3), detector: &detector).isEmpty, "too slow")
        // Look up and back (half a cycle): two swings.
        #expect(detect(oscillation("pitch", degrees: 20, hertz: 1, from: 10, duration: 0.5), detector: &detector).isEmpty)
        // Swings too far apart (0.2 Hz: 2.5 s between swing starts).
        #expect(detect(oscillation("yaw", degrees: 60, hertz: 0.2, from: 20, duration: 10), detector: &detector).isEmpty)
        // Diagonal: pitch and yaw equally fast, neither dominates.
        let diagonal = oscillation("pitch", degrees: 15, hertz: 2, from: 40, duration: 1.5).map { sample in
            (sample.0, Vector3(x: sample.1.x, y: 0, z: sample.1.x), sample.2)
        }
        #expect(detect(diagonal, detector: &detector).isEmpty)
    }

    @Test("after a pause longer than swingGap, a new gesture is reported again; reset forgets swings")
    func repeatedGestures() {
        var detector = detector()
        #expect(detect(oscillation("pitch", degrees: 15, hertz: 2, from: 0, duration: 1.5), detector: &detector).count == 1)
        #expect(detect(oscillation("pitch", degrees: 15, hertz: 2, from: 3, duration: 1.5), detector: &detector).count == 1)
        // Two swings, a reset, one more swing: not three in a row.
        let swings = oscillation("pitch", degrees: 15, hertz: 2, from: 10, duration: 0.35)
        #expect(detect(swings, detector: &detector).isEmpty)
        detector.reset()
        #expect(detect(oscillation("pitch", degrees: 15, hertz: 2, from: 10.35, duration: 0.2), detector: &detector).isEmpty)
    }
}
