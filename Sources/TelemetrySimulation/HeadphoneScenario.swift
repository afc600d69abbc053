public import TelemetryCore

/// A scripted headphone session with its ground truth: the frames a phone bridge publishes
/// for AirPods (hello, status, `headphone/connection`, 25 Hz `headphone/motion` in 5-sample
/// frames) and what the gateway must derive from them.
///
/// The expectations come from the script alone (which bud streams when, which events the
/// bridge sends, which head angles are held), never from the gateway's derivers: connection
/// states and reasons from the events and gaps the script contains, hand-offs from the bud
/// schedule, poses from the scripted angles (the reference pose is always taken while pitch
/// and roll are 0, so the relative pose is the scripted angles minus the reference yaw),
/// posture and gesture windows from where the script pitches the head down or nods/shakes it.
///
/// Presets (all on `startDate` + scenario seconds, device uptime `uptimeAtStart` + seconds):
/// ``listeningSession(deviceId:startDate:)``, ``budHandoff(deviceId:startDate:)``,
/// ``bothBudsRemoved(deviceId:startDate:)``, ``streamStall(deviceId:startDate:resumeSpan:)``,
/// ``bridgeOffline(deviceId:startDate:)``; ``all(startDate:)`` lists them.
public struct HeadphoneScenario: Sendable {
    /// One thing that happens, in order.
    public enum Step: Sendable, Equatable {
        /// A frame the bridge publishes at `frame.time` scenario seconds.
        case frame(SimulatedFrame)
        /// The stream is silent for `seconds` (longer than the gateway's stream timeout). An
        /// offline driver just lets its clock pass (the next frame's `time` is later); a live
        /// driver must wait until the gateway reports `streamTimeout`.
        case silence(seconds: Double)
    }

    /// An expected `headphone/connection` state.
    public struct ExpectedConnection: Sendable, Equatable {
        /// Connected or disconnected.
        public var state: HeadphoneConnectionState
        /// Why.
        public var reason: HeadphoneConnectionReason
        /// The bud it names; nil for `null`.
        public var sensorLocation: SensorLocation?
        /// The exact `date` when it is the device's (an event's date); nil when it is on the
        /// gateway's clock (timeouts, resumptions, a will without date).
        public var date: Double?
        /// Where `timestamp` must lie, for motion-based transitions whose sample is known.
        public var timestamps: ClosedRange<Double>?
    }

    /// An expected bud hand-off.
    public struct ExpectedHandoff: Sendable, Equatable {
        /// The bud before.
        public var from: SensorLocation
        /// The bud after.
        public var to: SensorLocation
        /// The first sample of `to`, s since boot.
        public var timestamp: Double
    }

    /// A span of sample time in which the head holds a known pose relative to the reference.
    public struct ExpectedPose: Sendable, Equatable {
        /// Sample timestamps of the hold, s since boot.
        public var timestamps: ClosedRange<Double>
        /// The expected relative pose, degrees (yaw wrapped to (−180, 180]).
        public var angles: HeadAngles
    }

    /// An expected posture or gesture event: its kind and the window its `timestamp` falls in.
    public struct ExpectedEvent: Sendable, Equatable {
        /// `headDown`/`upright` or `nod`/`shake`.
        public var kind: String
        /// Where the event's `timestamp` must lie, s since boot.
        public var timestamps: ClosedRange<Double>
    }

    /// What a run of the scenario produced, read from the gateway's messages.
    public struct Observed: Sendable, Equatable {
        /// A `headphone/connection` message.
        public struct Connection: Sendable, Equatable {
            /// `state`.
            public var state: String
            /// `reason`.
            public var reason: String
            /// `sensorLocation`; nil for `null`.
            public var sensorLocation: String?
            /// `date`, epoch seconds.
            public var date: Double
            /// `timestamp`, when present.
            public var timestamp: Double?
            /// `version`.
            public var version: UInt64
            /// Creates an observed connection state.
            public init(state: String, reason: String, sensorLocation: String?, date: Double, timestamp: Double?, version: UInt64) {
                self.state = state
                self.reason = reason
                self.sensorLocation = sensorLocation
                self.date = date
                self.timestamp = timestamp
                self.version = version
            }
        }

        /// A `headphone/sensor-location` message.
        public struct Handoff: Sendable, Equatable {
            /// `from`.
            public var from: String
            /// `to`.
            public var to: String
            /// `timestamp`, s since boot.
            public var timestamp: Double
            /// Creates an observed hand-off.
            public init(from: String, to: String, timestamp: Double) {
                self.from = from
                self.to = to
                self.timestamp = timestamp
            }
        }

        /// A `headphone/pose` message (degrees).
        public struct Pose: Sendable, Equatable {
            /// `timestamp`, s since boot.
            public var timestamp: Double
            /// `yaw`, degrees.
            public var yaw: Double
            /// `pitch`, degrees.
            public var pitch: Double
            /// `roll`, degrees.
            public var roll: Double
            /// Creates an observed pose.
            public init(timestamp: Double, yaw: Double, pitch: Double, roll: Double) {
                self.timestamp = timestamp
                self.yaw = yaw
                self.pitch = pitch
                self.roll = roll
            }
        }

        /// A posture (`state`) or gesture (`gesture`) message.
        public struct Event: Sendable, Equatable {
            /// `state` of a posture event, `gesture` of a gesture event.
            public var kind: String
            /// `timestamp`, s since boot.
            public var timestamp: Double
            /// Creates an observed event.
            public init(kind: String, timestamp: Double) {
                self.kind = kind
                self.timestamp = timestamp
            }
        }

        /// `headphone/connection` messages, in order.
        public var connections: [Connection] = []
        /// `headphone/sensor-location` messages, in order.
        public var handoffs: [Handoff] = []
        /// `headphone/pose` messages, in order.
        public var poses: [Pose] = []
        /// `headphone/posture` messages, in order.
        public var postures: [Event] = []
        /// `headphone/gesture` messages, in order.
        public var gestures: [Event] = []

        /// Nothing observed yet.
        public init() {}
    }

    /// A short name for test output.
    public let name: String
    /// The device id the bridge publishes under.
    public let deviceId: String
    /// Unix epoch seconds at scenario time 0.
    public let startDate: Double
    /// Device uptime (s since boot) at scenario time 0.
    public let uptimeAtStart: Double
    /// What happens, in order.
    public let steps: [Step]
    /// Every `headphone/connection` state, in order.
    public let connections: [ExpectedConnection]
    /// Every hand-off, in order.
    public let handoffs: [ExpectedHandoff]
    /// Holds with known relative poses.
    public let poses: [ExpectedPose]
    /// Every posture event, in order.
    public let postures: [ExpectedEvent]
    /// Every gesture event, in order.
    public let gestures: [ExpectedEvent]

    /// The frames, in publishing order.
    public var frames: [SimulatedFrame] {
        steps.compactMap { step in
            if case .frame(let frame) = step { return frame }
            return nil
        }
    }

    /// Every preset, on distinct device ids (`buds-listen`, `buds-handoff`, `buds-removed`,
    /// `buds-stall`, `buds-offline`).
    /// - Parameter startDate: Unix epoch seconds at scenario time 0.
    public static func all(startDate: Double = 1_767_225_600) -> [HeadphoneScenario] {
        [
            listeningSession(startDate: startDate), budHandoff(startDate: startDate), bothBudsRemoved(startDate: startDate),
            streamStall(startDate: startDate), bridgeOffline(startDate: startDate),
        ]
    }

    // MARK: Checking

    /// What differs between `observed` and the ground truth, one line per difference (empty:
    /// the run matches). Angles must be within `tolerance` degrees (yaw compared around the
    /// circle); each expected hold must contain at least one pose.
    /// - Parameters:
    ///   - observed: the run's messages.
    ///   - tolerance: degrees; 1 by default.
    public func mismatches(_ observed: Observed, tolerance: Double = 1) -> [String] {
        var problems: [String] = []
        let prefix = "\(name) (\(deviceId))"
        if observed.connections.count != connections.count {
            problems.append("\(prefix): \(observed.connections.count) connection states, expected \(connections.count): \(observed.connections)")
        }
        for (index, (seen, expected)) in zip(observed.connections, connections).enumerated() {
            let what = "\(prefix) connection[\(index)]"
            if seen.state != expected.state.rawValue || seen.reason != expected.reason.rawValue || seen.sensorLocation != expected.sensorLocation?.name {
                problems.append(
                    "\(what): \(seen.state)/\(seen.reason)/\(seen.sensorLocation ?? "null"), expected \(expected.state.rawValue)/\(expected.reason.rawValue)/\(expected.sensorLocation?.name ?? "null")")
            }
            if let date = expected.date, abs(seen.date - date) > 1e-6 { problems.append("\(what): date \(seen.date), expected \(date)") }
            if let range = expected.timestamps, !(seen.timestamp.map(range.contains) ?? false) {
                problems.append("\(what): timestamp \(seen.timestamp.map { "\($0)" } ?? "none"), expected in \(range)")
            }
            if index > 0, seen.version <= observed.connections[index - 1].version {
                problems.append("\(what): version \(seen.version) does not increase")
            }
        }
        let handoffsSeen = observed.handoffs.map { "\($0.from)→\($0.to)@\($0.timestamp)" }
        let handoffsExpected = handoffs.map { "\($0.from.name)→\($0.to.name)@\($0.timestamp)" }
        if handoffsSeen != handoffsExpected { problems.append("\(prefix): hand-offs \(handoffsSeen), expected \(handoffsExpected)") }
        for hold in poses {
            let inHold = observed.poses.filter { hold.timestamps.contains($0.timestamp) }
            if inHold.isEmpty { problems.append("\(prefix): no pose in \(hold.timestamps)") }
            for pose in inHold {
                let yawError = abs(Self.wrapped(pose.yaw - hold.angles.yaw))
                if yawError > tolerance || abs(pose.pitch - hold.angles.pitch) > tolerance || abs(pose.roll - hold.angles.roll) > tolerance {
                    problems.append(
                        "\(prefix): pose at \(pose.timestamp) is yaw \(pose.yaw) pitch \(pose.pitch) roll \(pose.roll), expected \(hold.angles) ±\(tolerance)°")
                }
            }
        }
        problems += Self.eventMismatches("\(prefix) posture", observed.postures, postures)
        problems += Self.eventMismatches("\(prefix) gesture", observed.gestures, gestures)
        return problems
    }

    private static func eventMismatches(_ what: String, _ seen: [Observed.Event], _ expected: [ExpectedEvent]) -> [String] {
        let matches = seen.count == expected.count && zip(seen, expected).allSatisfy { $0.kind == $1.kind && $1.timestamps.contains($0.timestamp) }
        return matches ? [] : ["\(what): \(seen.map { "\($0.kind)@\($0.timestamp)" }), expected \(expected.map { "\($0.kind) in \($0.timestamps)" })"]
    }

    /// An angle difference in degrees wrapped to (−180, 180].
    static func wrapped(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value > 180 { value -= 360 }
        if value <= -180 { value += 360 }
        return value
    }
}
