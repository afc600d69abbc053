import TelemetrySimulation

@testable import TelemetryCore

/// Drives a ``SubmersionDeriver`` the way the frame processor does, and keeps what it published.
struct SubmersionFeed {
    var deriver: SubmersionDeriver
    let device: DeviceID
    var maximumDepth: Double?
    /// The gateway clock: advanced by 0.1 s per frame unless a test sets it.
    var receivedAt = 1_000.0
    private(set) var published: [OutboundMessage] = []

    init(device: String = "dive-1", maximumDepth: Double? = 6, configuration: SubmersionConfiguration = SubmersionConfiguration()) {
        deriver = SubmersionDeriver(configuration: configuration)
        self.device = DeviceID(device)!
        self.maximumDepth = maximumDepth
    }

    var context: DerivationContext { DerivationContext(device: device, receivedAt: receivedAt, maximumDepth: maximumDepth) }

    @discardableResult
    mutating func frame(_ frame: DecodedFrame) -> [OutboundMessage] {
        receivedAt += 0.1
        let messages = deriver.receive(frame, context: context)
        published += messages
        return messages
    }

    @discardableResult
    mutating func event(_ date: Double, _ state: WaterSubmersionState) -> [OutboundMessage] {
        frame(.submersionEvent(SubmersionEvent(date: date, state: state), sequence: nil))
    }

    @discardableResult
    mutating func measurement(
        _ date: Double, depth: Double?, pressure: Double? = nil, surfacePressure: Double = 101.3, state: DepthState? = nil
    ) -> [OutboundMessage] {
        let own = state ?? depth.map { DepthBands(maximumDepth: maximumDepth ?? 6).state(forDepth: $0) } ?? .notSubmerged
        return frame(
            .submersionMeasurement(
                SubmersionMeasurement(date: date, depth: depth, pressure: pressure, surfacePressure: surfacePressure, submersionState: own),
                sequence: nil))
    }

    @discardableResult
    mutating func temperature(_ date: Double, _ celsius: Double, uncertainty: Double) -> [OutboundMessage] {
        frame(.submersionTemperature(WaterTemperature(date: date, temperature: celsius, temperatureUncertainty: uncertainty), sequence: nil))
    }

    @discardableResult
    mutating func tick(at now: Double) -> [OutboundMessage] {
        receivedAt = now
        let messages = deriver.tick(now: now, context: DerivationContext(device: device, receivedAt: now))
        published += messages
        return messages
    }

    /// Feeds a scenario's observations (dates as generated).
    mutating func feed(_ scenario: DiveScenario, startDate: Double = 1_700_000_000) {
        for (_, observation) in scenario.observations(startDate: startDate) {
            switch observation {
            case .event(let event): frame(.submersionEvent(event, sequence: nil))
            case .measurement(let measurement): frame(.submersionMeasurement(measurement, sequence: nil))
            case .temperature(let reading): frame(.submersionTemperature(reading, sequence: nil))
            }
        }
    }

    /// Published messages whose topic ends with `leaf` (e.g. `submersion/dive`).
    func messages(_ leaf: String) -> [OutboundMessage] {
        published.filter { $0.topic == "gateway/\(device.rawValue)/\(leaf)" }
    }

    /// The published depth states, in order.
    var states: [DepthState] {
        messages(TopicScheme.Leaf.submersionDepthState.rawValue).compactMap { $0.string("state").flatMap(DepthState.init(wireValue:)) }
    }
}
