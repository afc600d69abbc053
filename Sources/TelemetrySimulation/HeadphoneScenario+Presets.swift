#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
public import TelemetryCore

extension HeadphoneScenario {
    /// A listening session on the left bud: head turns to known angles (including across ±180°
    /// of relative yaw), a nod, a shake, 35 s looking down and back up, then the buds come out.
    ///
    /// Ground truth: connected (`event`, no bud yet) → disconnected (`earRemoved`, left); no
    /// hand-off; poses (30, 0, 0), (−45, 0, 0), (120, 10, −5), (175, 0, 0), (−175, 0, 0),
    /// (0, −30, 0), (0, 0, 0) during the holds; one nod, one shake; `headDown` once the pitch has
    /// been below −angle for `duration`, `upright` once it is back above −(angle − hysteresis).
    /// - Parameters:
    ///   - deviceId: the device id; `buds-listen` by default.
    ///   - startDate: Unix epoch seconds at scenario time 0.
    ///   - configuration: the gateway's headphone settings the posture windows are computed for.
    public static func listeningSession(
        deviceId: String = "buds-listen", startDate: Double = 1_767_225_600, configuration: HeadphoneConfiguration = HeadphoneConfiguration()
    ) -> HeadphoneScenario {
        // A heading of 160° puts the +30° turn at an absolute yaw of 190° = −170°.
        var builder = HeadphoneScenarioBuilder(name: "listening session", deviceId: deviceId, startDate: startDate, heading: 160)
        builder.script.hold(until: 3)
        builder.script.move(to: HeadAngles(yaw: 30), until: 4)
        builder.script.hold(until: 7)
        builder.script.move(to: HeadAngles(yaw: -45), until: 8.5)
        builder.script.hold(until: 11.5)
        builder.script.move(to: HeadAngles(yaw: 120, pitch: 10, roll: -5), until: 13)
        builder.script.hold(until: 16)
        builder.script.move(to: HeadAngles(yaw: 175), until: 17.5)
        builder.script.hold(until: 20)
        builder.script.move(to: HeadAngles(yaw: 185), until: 20.5)
        builder.script.hold(until: 23)
        builder.script.move(to: HeadAngles(), until: 25)
        builder.script.hold(until: 26)
        builder.script.oscillate(.pitch, amplitude: 15, hertz: 2, until: 27.5)
        builder.script.hold(until: 29)
        builder.script.oscillate(.yaw, amplitude: 20, hertz: 2, until: 30.5)
        builder.script.hold(until: 32)
        builder.script.move(to: HeadAngles(pitch: -30), until: 33)
        builder.script.hold(until: 68)
        builder.script.move(to: HeadAngles(), until: 69)
        builder.script.hold(until: 72)

        builder.bridgeOnline(at: 0)
        builder.connection(.connected, at: 0.1)
        builder.expectConnection(.connected, .event, nil, at: 0.1)
        builder.stream(from: 0.2, through: 72, bud: .headphoneLeft)
        builder.connection(.disconnected, at: 72.1)
        builder.expectConnection(.disconnected, .earRemoved, .headphoneLeft, at: 72.1)

        builder.expectPose(HeadAngles(), from: 0.2, through: 3)
        builder.expectPose(HeadAngles(yaw: 30), from: 4, through: 7)
        builder.expectPose(HeadAngles(yaw: -45), from: 8.5, through: 11.5)
        builder.expectPose(HeadAngles(yaw: 120, pitch: 10, roll: -5), from: 13, through: 16)
        builder.expectPose(HeadAngles(yaw: 175), from: 17.5, through: 20)
        builder.expectPose(HeadAngles(yaw: -175), from: 20.5, through: 23)
        builder.expectPose(HeadAngles(pitch: -30), from: 33, through: 68)
        builder.expectPose(HeadAngles(), from: 69, through: 72)
        builder.expectGesture("nod", from: 26, through: 27.5)
        builder.expectGesture("shake", from: 29, through: 30.5)
        // The eased moves cross a pitch p at start + acos(1 − 2·p/(−30))/π of their 1 s.
        let downCrossing = 32 + acos(1 - 2 * configuration.postureAngle / 30) / Double.pi
        let recoveryAngle = configuration.postureAngle - configuration.postureHysteresis
        let upCrossing = 68 + acos(1 - 2 * (30 - recoveryAngle) / 30) / Double.pi
        let sample = 1 / HeadphoneScenarioBuilder.sampleRate
        builder.expectPosture("headDown", from: downCrossing + configuration.postureDuration, through: downCrossing + configuration.postureDuration + sample + 0.01)
        builder.expectPosture("upright", from: upCrossing, through: upCrossing + sample + 0.01)
        return builder.build()
    }

    /// The left bud is taken out and the right one takes over the stream 0.3 s later (no
    /// disconnect: one bud is still in), then both come out.
    ///
    /// Ground truth: connected (`event`) → disconnected (`earRemoved`, right); one hand-off left →
    /// right at the first right sample; the held 20° yaw is the same from either bud.
    /// - Parameters:
    ///   - deviceId: the device id; `buds-handoff` by default.
    ///   - startDate: Unix epoch seconds at scenario time 0.
    public static func budHandoff(deviceId: String = "buds-handoff", startDate: Double = 1_767_225_600) -> HeadphoneScenario {
        var builder = HeadphoneScenarioBuilder(name: "bud hand-off", deviceId: deviceId, startDate: startDate, heading: -120)
        builder.script.hold(until: 3)
        builder.script.move(to: HeadAngles(yaw: 20), until: 4)
        builder.script.hold(until: 20)

        builder.bridgeOnline(at: 0)
        builder.connection(.connected, at: 0.1)
        builder.expectConnection(.connected, .event, nil, at: 0.1)
        builder.stream(from: 0.2, through: 10, bud: .headphoneLeft)
        builder.stream(from: 10.3, through: 20, bud: .headphoneRight)
        builder.expectHandoff(.headphoneLeft, .headphoneRight, firstSampleAtOrAfter: 10.3)
        builder.connection(.disconnected, at: 20.1)
        builder.expectConnection(.disconnected, .earRemoved, .headphoneRight, at: 20.1)
        builder.expectPose(HeadAngles(yaw: 20), from: 4, through: 20)
        return builder.build()
    }

    /// Streaming from the right bud, both buds come out (disconnect); the last motion frame and
    /// a stale `connected` event (dated before the disconnect) arrive after it; the buds go back
    /// in 6 s later and the left bud streams.
    ///
    /// Ground truth: connected (`event`, no bud) → disconnected (`earRemoved`, right) →
    /// connected (`event`, right: the last bud known) → disconnected (`earRemoved`, left); the
    /// late frame and the stale event change nothing; one hand-off right → left; poses relative
    /// to the first sample after each connect.
    /// - Parameters:
    ///   - deviceId: the device id; `buds-removed` by default.
    ///   - startDate: Unix epoch seconds at scenario time 0.
    public static func bothBudsRemoved(deviceId: String = "buds-removed", startDate: Double = 1_767_225_600) -> HeadphoneScenario {
        var builder = HeadphoneScenarioBuilder(name: "both buds removed", deviceId: deviceId, startDate: startDate, heading: 10)
        builder.script.hold(until: 2)
        builder.script.move(to: HeadAngles(yaw: -40), until: 3)
        builder.script.hold(until: 16)
        builder.script.move(to: HeadAngles(yaw: -10), until: 17)
        builder.script.hold(until: 22)

        builder.bridgeOnline(at: 0)
        builder.connection(.connected, at: 0.1)
        builder.expectConnection(.connected, .event, nil, at: 0.1)
        var frames = builder.motionFrames(from: 0.2, through: 8, bud: .headphoneRight)
        let late = frames.removeLast()
        for frame in frames { builder.append(frame) }
        builder.connection(.disconnected, at: 8.05)
        builder.expectConnection(.disconnected, .earRemoved, .headphoneRight, at: 8.05)
        builder.append(SimulatedFrame(deviceId: late.deviceId, stream: late.stream, payload: late.payload, retain: false, qos: late.qos, time: 8.06))
        builder.connection(.connected, at: 8.2, dated: 7.9)
        builder.connection(.connected, at: 14)
        builder.expectConnection(.connected, .event, .headphoneRight, at: 14)
        builder.stream(from: 14.1, through: 22, bud: .headphoneLeft)
        builder.expectHandoff(.headphoneRight, .headphoneLeft, firstSampleAtOrAfter: 14.1)
        builder.connection(.disconnected, at: 22.1)
        builder.expectConnection(.disconnected, .earRemoved, .headphoneLeft, at: 22.1)

        builder.expectPose(HeadAngles(yaw: -40), from: 3, through: 7.8)
        builder.expectPose(HeadAngles(), from: 14.1, through: 16)
        builder.expectPose(HeadAngles(yaw: 30), from: 17, through: 22)
        return builder.build()
    }

    /// The stream stalls for 3 s while connected; one stray sample arrives and stops again;
    /// then the stream resumes.
    ///
    /// Ground truth: connected (`event`) → disconnected (`streamTimeout`, left) → connected
    /// (`streamResumed`, left, at the first sample `resumeSpan` after the resumption: the stray
    /// sample does not count) → disconnected (`earRemoved`, left); every pose relative to the
    /// first sample: a stall keeps the reference (only a connect event, a reset-pose command
    /// takes a new one), so the held pose after the stall is still 40°, not 0°.
    /// - Parameters:
    ///   - deviceId: the device id; `buds-stall` by default.
    ///   - startDate: Unix epoch seconds at scenario time 0.
    ///   - configuration: the gateway's headphone settings (its `resumeSpan` places the resumption).
    public static func streamStall(
        deviceId: String = "buds-stall", startDate: Double = 1_767_225_600, configuration: HeadphoneConfiguration = HeadphoneConfiguration()
    ) -> HeadphoneScenario {
        var builder = HeadphoneScenarioBuilder(name: "stream stall", deviceId: deviceId, startDate: startDate, heading: 95)
        builder.script.hold(until: 3)
        builder.script.move(to: HeadAngles(yaw: 40), until: 4)
        builder.script.hold(until: 14)
        builder.script.move(to: HeadAngles(yaw: 70), until: 15)
        builder.script.hold(until: 22)

        builder.bridgeOnline(at: 0)
        builder.connection(.connected, at: 0.1)
        builder.expectConnection(.connected, .event, nil, at: 0.1)
        builder.stream(from: 0.2, through: 6, bud: .headphoneLeft)
        builder.silence(3)
        builder.expectConnection(.disconnected, .streamTimeout, .headphoneLeft)
        builder.stream(from: 9, through: 9, bud: .headphoneLeft)
        builder.stream(from: 12, through: 22, bud: .headphoneLeft)
        let resumed = builder.sampleTimestamp(atOrAfter: 12 + configuration.resumeSpan)
        builder.expectConnection(.connected, .streamResumed, .headphoneLeft, timestamps: resumed...resumed)
        builder.connection(.disconnected, at: 22.1)
        builder.expectConnection(.disconnected, .earRemoved, .headphoneLeft, at: 22.1)

        builder.expectPose(HeadAngles(yaw: 40), from: 4, through: 6)
        builder.expectPose(HeadAngles(yaw: 40), from: 12 + configuration.resumeSpan, through: 14)
        builder.expectPose(HeadAngles(yaw: 70), from: 15, through: 22)
        return builder.build()
    }

    /// The phone bridge goes offline (its will: `status` offline without a date) while the right
    /// bud streams, comes back 4 s later and reports the headphones connected again.
    ///
    /// Ground truth: connected (`event`) → disconnected (`deviceOffline`, right) → connected
    /// (`event`, right) → disconnected (`earRemoved`, right); poses relative to the first sample
    /// after each connect.
    /// - Parameters:
    ///   - deviceId: the device id; `buds-offline` by default.
    ///   - startDate: Unix epoch seconds at scenario time 0.
    public static func bridgeOffline(deviceId: String = "buds-offline", startDate: Double = 1_767_225_600) -> HeadphoneScenario {
        var builder = HeadphoneScenarioBuilder(name: "bridge offline", deviceId: deviceId, startDate: startDate, heading: -175)
        builder.script.hold(until: 3)
        builder.script.move(to: HeadAngles(yaw: -25), until: 4)
        builder.script.hold(until: 14)
        builder.script.move(to: HeadAngles(yaw: 5), until: 15)
        builder.script.hold(until: 18)

        builder.bridgeOnline(at: 0)
        builder.connection(.connected, at: 0.1)
        builder.expectConnection(.connected, .event, nil, at: 0.1)
        builder.stream(from: 0.2, through: 8, bud: .headphoneRight)
        builder.bridgeWill(at: 8.05)
        builder.expectConnection(.disconnected, .deviceOffline, .headphoneRight)
        builder.bridgeOnline(at: 12, hello: false)
        builder.connection(.connected, at: 12.1)
        builder.expectConnection(.connected, .event, .headphoneRight, at: 12.1)
        builder.stream(from: 12.2, through: 18, bud: .headphoneRight)
        builder.connection(.disconnected, at: 18.1)
        builder.expectConnection(.disconnected, .earRemoved, .headphoneRight, at: 18.1)

        builder.expectPose(HeadAngles(yaw: -25), from: 4, through: 8)
        builder.expectPose(HeadAngles(), from: 12.2, through: 14)
        builder.expectPose(HeadAngles(yaw: 30), from: 15, through: 18)
        return builder.build()
    }
}
