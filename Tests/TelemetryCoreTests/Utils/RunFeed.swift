import TelemetrySimulation

@testable import TelemetryCore

/// Drives a ``RunSegmentDeriver`` the way the frame processor does, and keeps what it published.
struct RunFeed {
    var deriver: RunSegmentDeriver
    let device: DeviceID
    /// The gateway clock: advanced by 0.1 s per frame unless a test sets it.
    var receivedAt = 1_000.0
    private(set) var published: [OutboundMessage] = []

    init(device: String = "run-1", configuration: RunConfiguration = RunConfiguration()) {
        deriver = RunSegmentDeriver(configuration: configuration)
        self.device = DeviceID(device)!
    }

    @discardableResult
    mutating func frame(_ frame: DecodedFrame) -> [OutboundMessage] {
        receivedAt += 0.1
        let messages = deriver.receive(frame, context: DerivationContext(device: device, receivedAt: receivedAt))
        published += messages
        return messages
    }

    @discardableResult
    mutating func workout(_ state: WorkoutState, _ date: Double, activityType: String = "running") -> [OutboundMessage] {
        frame(.workout(WorkoutEvent(state: state, activityType: activityType, date: date), sequence: nil))
    }

    @discardableResult
    mutating func event(_ date: Double, _ type: PedometerEventType) -> [OutboundMessage] {
        frame(.pedometerEvent(PedometerEvent(date: date, type: type), sequence: nil))
    }

    /// A cumulative pedometer update since `start`.
    @discardableResult
    mutating func data(_ end: Double, steps: Int, distance: Double? = nil, start: Double = 0) -> [OutboundMessage] {
        frame(.pedometerData(PedometerData(startDate: start, endDate: end, numberOfSteps: steps, distance: distance), sequence: nil))
    }

    @discardableResult
    mutating func altitude(_ timestamp: Double, _ relativeAltitude: Double) -> [OutboundMessage] {
        frame(.altimeter(AltitudeSample(timestamp: timestamp, relativeAltitude: relativeAltitude, pressure: 100), sequence: nil))
    }

    @discardableResult
    mutating func tick(at now: Double) -> [OutboundMessage] {
        receivedAt = now
        let messages = deriver.tick(now: now, context: DerivationContext(device: device, receivedAt: now))
        published += messages
        return messages
    }

    /// Feeds a scenario's observations. `realTime`: each frame arrives at its scenario time on
    /// the gateway clock (with a tick every half second in between); otherwise as fast as a
    /// replay through a broker (1 ms apart).
    mutating func feed(_ scenario: RunScenario, startDate: Double, realTime: Bool = false) {
        var nextTick = receivedAt + 0.5
        let origin = receivedAt
        for (time, observation) in scenario.observations(startDate: startDate) {
            if realTime {
                while nextTick < origin + time {
                    tick(at: nextTick)
                    nextTick += 0.5
                }
                receivedAt = origin + time - 0.1
            } else {
                receivedAt -= 0.099
            }
            switch observation {
            case .workout(let event): frame(.workout(event, sequence: nil))
            case .pedometerEvent(let event, _): frame(.pedometerEvent(event, sequence: nil))
            case .pedometerData(let data): frame(.pedometerData(data, sequence: nil))
            case .altimeter(let sample): frame(.altimeter(sample, sequence: nil))
            }
        }
    }

    /// Published messages on `gateway/{id}/<leaf>`.
    func messages(_ leaf: String) -> [OutboundMessage] {
        published.filter { $0.topic == "gateway/\(device.rawValue)/\(leaf)" }
    }

    /// The published segments.
    var segments: [OutboundMessage] { messages(TopicScheme.Leaf.pedometerSegment.rawValue) }
    /// The published workout summaries.
    var workouts: [OutboundMessage] { messages(TopicScheme.Leaf.pedometerWorkout.rawValue) }
}
