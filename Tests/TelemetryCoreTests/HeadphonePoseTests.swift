import Testing

@testable import TelemetryCore

/// The head pose math against hand-computed quaternions, and the pose rate limit.
@Suite struct HeadphonePoseTests {
    // sin/cos of the half angles, computed by hand (to 9 digits).
    private static let half45 = 0.707106781  // sin 45° = cos 45°
    private static let sin15 = 0.258819045, cos15 = 0.965925826
    private static let sin85 = 0.996194698, cos85 = 0.087155743
    private static let sin10 = 0.173648178, cos10 = 0.984807753

    private func expectClose(_ actual: Quaternion, _ expected: Quaternion, _ comment: Comment? = nil) {
        let error = max(abs(actual.x - expected.x), abs(actual.y - expected.y), abs(actual.z - expected.z), abs(actual.w - expected.w))
        #expect(error < 1e-6, "\(actual) vs \(expected)")
    }

    private func pose(_ attitude: Quaternion, reference: Quaternion) -> HeadPose {
        HeadPose.relative(attitude, to: reference, timestamp: 2, referenceTimestamp: 1)
    }

    @Test("relative to the identity the pose is the attitude: yaw 90° about Z")
    func identityReference() {
        let result = pose(Quaternion(x: 0, y: 0, z: Self.half45, w: Self.half45), reference: .identity)
        expectClose(result.quaternion, Quaternion(x: 0, y: 0, z: Self.half45, w: Self.half45))
        #expect(abs(result.yaw - 90) < 1e-6)
        #expect(abs(result.pitch) < 1e-6)
        #expect(abs(result.roll) < 1e-6)
        #expect(result.timestamp == 2)
        #expect(result.referenceTimestamp == 1)
    }

    @Test("yaw 180° relative to yaw 90° is yaw 90°: (0,0,−√½,√½) ⊗ (0,0,1,0) = (0,0,√½,√½)")
    func yawDifference() {
        let result = pose(Quaternion(x: 0, y: 0, z: 1, w: 0), reference: Quaternion(x: 0, y: 0, z: Self.half45, w: Self.half45))
        expectClose(result.quaternion, Quaternion(x: 0, y: 0, z: Self.half45, w: Self.half45))
        #expect(abs(result.yaw - 90) < 1e-6)
    }

    @Test("across ±180°: yaw −170° relative to yaw 170° is +20°, not −340°")
    func yawWrapAround() {
        // ref = (0,0,sin 85°,cos 85°), q = (0,0,−sin 85°,cos 85°):
        // conj(ref) ⊗ q = (0, 0, −2·sin85·cos85, cos²85 − sin²85) = (0,0,−sin 10°,−cos 10°) ≡ (0,0,sin 10°,cos 10°).
        let reference = Quaternion(x: 0, y: 0, z: Self.sin85, w: Self.cos85)
        let current = Quaternion(x: 0, y: 0, z: -Self.sin85, w: Self.cos85)
        let result = pose(current, reference: reference)
        expectClose(result.quaternion, Quaternion(x: 0, y: 0, z: Self.sin10, w: Self.cos10), "w ≥ 0 form")
        #expect(abs(result.yaw - 20) < 1e-6)
        // And back: yaw 170° relative to −170° is −20°.
        #expect(abs(pose(reference, reference: current).yaw + 20) < 1e-6)
        // A relative turn past 180° reads as the short way round: 185° is −175°.
        let turned = pose(Quaternion(yaw: (10 + 185) * Double.pi / 180, pitch: 0, roll: 0), reference: Quaternion(yaw: 10 * Double.pi / 180, pitch: 0, roll: 0))
        #expect(abs(turned.yaw + 175) < 1e-6)
    }

    @Test("pitch 30° about X: (sin 15°, 0, 0, cos 15°)")
    func pitch() {
        let result = pose(Quaternion(x: Self.sin15, y: 0, z: 0, w: Self.cos15), reference: .identity)
        #expect(abs(result.pitch - 30) < 1e-6)
        #expect(abs(result.yaw) < 1e-6)
        #expect(abs(result.roll) < 1e-6)
    }

    @Test("relative pose is q_ref⁻¹ ⊗ q, not a difference of Euler angles")
    func notEulerSubtraction() {
        // ref = qx(30°) = (sin15, 0, 0, cos15); q = qx(30°) ⊗ qz(90°), expanded by hand:
        // x = sin15·√½, y = −sin15·√½, z = cos15·√½, w = cos15·√½.
        let reference = Quaternion(x: Self.sin15, y: 0, z: 0, w: Self.cos15)
        let current = Quaternion(x: Self.sin15 * Self.half45, y: -Self.sin15 * Self.half45, z: Self.cos15 * Self.half45, w: Self.cos15 * Self.half45)
        let result = pose(current, reference: reference)
        expectClose(result.quaternion, Quaternion(x: 0, y: 0, z: Self.half45, w: Self.half45))
        #expect(abs(result.yaw - 90) < 1e-6)
        #expect(abs(result.pitch) < 1e-6)
        #expect(abs(result.roll) < 1e-6)
        // The absolute angles of q are (yaw 90°, pitch 0°, roll −30°): subtracting the reference's
        // (0°, 30°, 0°) would give pitch −30° and roll −30°.
        let absolute = current.eulerAngles
        #expect(abs(absolute.roll * 180 / Double.pi + 30) < 1e-6)
    }

    @Test("q and −q, and unnormalized input, give the same pose; the reference itself is the identity")
    func signAndNorm() {
        let reference = Quaternion(x: 0.1, y: -0.2, z: 0.3, w: 0.9).normalized
        let current = Quaternion(x: -0.3, y: 0.1, z: 0.2, w: 0.8).normalized
        let plain = pose(current, reference: reference)
        let negated = pose(Quaternion(x: -current.x, y: -current.y, z: -current.z, w: -current.w), reference: reference)
        let scaled = pose(Quaternion(x: current.x * 2, y: current.y * 2, z: current.z * 2, w: current.w * 2), reference: reference)
        expectClose(negated.quaternion, plain.quaternion)
        expectClose(scaled.quaternion, plain.quaternion)
        #expect(plain.quaternion.w >= 0)
        let same = pose(reference, reference: reference)
        expectClose(same.quaternion, .identity)
        #expect(abs(same.yaw) < 1e-9 && abs(same.pitch) < 1e-9 && abs(same.roll) < 1e-9)
    }

    @Test("Euler angles of the relative pose round-trip for known yaw, pitch and roll")
    func knownAngles() {
        let degrees = Double.pi / 180
        let reference = Quaternion(yaw: 160 * degrees, pitch: 0, roll: 0)
        for (yaw, pitch, roll) in [(30.0, 0.0, 0.0), (-45, 0, 0), (120, 10, -5), (175, 0, 0), (-175, -30, 0), (0, -30, 0)] {
            let current = Quaternion(yaw: (160 + yaw) * degrees, pitch: pitch * degrees, roll: roll * degrees)
            let result = pose(current, reference: reference)
            #expect(abs(result.yaw - yaw) < 1e-6 && abs(result.pitch - pitch) < 1e-6 && abs(result.roll - roll) < 1e-6, "\(result)")
        }
    }

    @Test("the rate limit passes at most one pose per 1/rate s of sample time", arguments: [(25.0, 10.0, 3), (100, 10, 10), (10, 10, 1), (25, 25, 1)])
    func rateLimit(inputRate: Double, limit: Double, every: Int) {
        var limiter = PoseRateLimiter(rate: limit)
        var passed: [Int] = []
        for index in 0..<60 {
            // µs-rounded timestamps, as on the wire.
            let timestamp = ((40_000 + Double(index) / inputRate) * 1e6).rounded() / 1e6
            if limiter.admit(timestamp) { passed.append(index) }
        }
        #expect(passed == Array(stride(from: 0, to: 60, by: every)))
    }

    @Test("a sample older than the last passed never passes; reset lets the next one through")
    func limiterOrderAndReset() {
        var limiter = PoseRateLimiter(rate: 10)
        let admitted = [100, 99, 100.05, 100.1].map { limiter.admit($0) }
        #expect(admitted == [true, false, false, true])
        limiter.reset()
        let afterReset = limiter.admit(100.11)
        #expect(afterReset)
    }

    @Test("the tracker takes the first sample after a reset as the reference and publishes it")
    func trackerReference() {
        var tracker = HeadPoseTracker(rate: 10)
        let degrees = Double.pi / 180
        let first = tracker.update(attitude: Quaternion(yaw: 50 * degrees, pitch: 0, roll: 0), timestamp: 10)
        #expect(first.publish)
        #expect(abs(first.pose.yaw) < 1e-9)
        let second = tracker.update(attitude: Quaternion(yaw: 80 * degrees, pitch: 0, roll: 0), timestamp: 10.04)
        #expect(!second.publish)
        #expect(abs(second.pose.yaw - 30) < 1e-6, "every sample has its pose, published or not")
        tracker.resetReference()
        let third = tracker.update(attitude: Quaternion(yaw: 80 * degrees, pitch: 0, roll: 0), timestamp: 10.08)
        #expect(third.publish)
        #expect(abs(third.pose.yaw) < 1e-9)
        #expect(third.pose.referenceTimestamp == 10.08)
    }
}
