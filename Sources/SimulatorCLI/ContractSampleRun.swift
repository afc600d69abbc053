import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import WearableGatewayTesting

/// The messages of the wire contract as the code produces them: the simulator's scenarios
/// (a mixed fleet, the rule breakers, dives, headphone sessions, a run, a tremor recording)
/// run through the gateway's pure ``FrameProcessor`` on a simulated clock, plus the recorder's
/// answers and tremor results, which the gateway's runtime builds with the same core functions.
/// No broker: `contract/` is checked against these (Examples/pytest/test_contract.py).
struct ContractSampleRun {
    /// One message on the wire.
    struct Sample: Encodable {
        /// `inbound` (devices and apps to the gateway) or `outbound` (the gateway's).
        var direction: String
        var topic: String
        var qos: MQTTQoS
        var retain: Bool
        var contentType: String?
        var messageExpiryInterval: UInt32?
        var userProperties: [[String]]
        /// The payload as UTF-8 text (JSON, or Prometheus text, or a dead letter's original bytes).
        var payload: String
        /// For an inbound frame the gateway rejected: the error code (`invalidPayload`,
        /// `notAvailable`, …); nil when it was accepted, and for outbound messages.
        var rejectedAs: String? = nil
    }

    /// Kept per topic: enough variety for the checks, a small file.
    static let samplesPerTopic = 4
    static let startDate = 1_767_225_600.0

    private(set) var samples: [Sample] = []
    private var perTopic: [String: Int] = [:]
    /// The shipped capability table and an open registry that withholds submersion from
    /// `watch-nodepth-1`, with dead letters on.
    private let configuration: FrameProcessor.Configuration

    /// Runs every scenario and collects the samples.
    static func make() throws -> ContractSampleRun {
        let table = try CapabilityTableLoader.parse(yaml: ShippedCapabilities.yaml, source: "ShippedCapabilities").table
        let withoutSubmersion = Set(Entitlement.allCases).subtracting([.submersionShallow, .submersionFull])
        let registry = DeviceRegistry(isOpen: true, defaultEntitlements: Set(Entitlement.allCases), devices: [DeviceID("watch-nodepth-1")!: withoutSubmersion])
        var run = ContractSampleRun(
            configuration: FrameProcessor.Configuration(accessPolicy: AccessPolicy(registry: registry, capabilities: table), deadLetters: DeadLetterPolicy()))
        run.runFleet()
        for scenario in DiveScenario.presets { run.runFrames(scenario.frames(startDate: startDate), startDate: startDate) }
        for scenario in HeadphoneScenario.all(startDate: startDate) { run.runFrames(scenario.frames, startDate: startDate) }
        let runScenario = RunScenario.urbanRun(seed: 1)
        run.runFrames(runScenario.frames(startDate: startDate), startDate: startDate)
        run.runRecorder(TremorScenario(deviceId: "watch-tremor-1", seed: 8, startDate: startDate))
        return run
    }

    // MARK: Scenarios

    /// The mixed fleet and the rule breakers, plus frames that break the topic and payload rules
    /// and a bridge's will.
    private mutating func runFleet() {
        var generator = TrafficGenerator(seed: 1, devices: SimulatedFleet.mixed(count: 5) + SimulatedFleet.ruleBreakers(), startDate: Self.startDate)
        var frames = generator.advance(to: 30)
        let broken: [(String, String)] = [
            ("watch-ultra-1", "gyro"), ("watch!1", "motion"), ("watch-ultra-1", "motion"), ("watch-ultra-1", "submersion/measurement"),
        ]
        for (index, (device, stream)) in broken.enumerated() {
            let payload = stream == "submersion/measurement" ? #"{"date":1767225620,"surfacePressure":101.3,"submersionState":"diving"}"# : "{"
            frames.append(SimulatedFrame(deviceId: device, stream: stream, payload: Array(payload.utf8), retain: false, qos: .atLeastOnce, time: 20 + Double(index)))
        }
        frames.sort { $0.time < $1.time }
        runFrames(frames, startDate: Self.startDate)
        // The MQTT will of a bridge: offline without a date.
        var processor = FrameProcessor(configuration: configuration)
        for frame in [#"{"state":"online","date":1767225600}"#, #"{"state":"offline"}"#] {
            let inbound = InboundFrame(topic: TopicScheme().inboundTopic(DeviceID("watch-will-1")!, .status), payload: Array(frame.utf8), receivedAt: Self.startDate + 1)
            record(inbound, retain: true, qos: .atLeastOnce, processor.process(inbound))
        }
    }

    /// Runs frames through a processor on a simulated clock: each frame received at its time,
    /// the worker's tick every 0.5 s, then two hours of ticks (silence timeouts, summaries).
    private mutating func runFrames(_ frames: [SimulatedFrame], startDate: Double) {
        var processor = FrameProcessor(configuration: configuration)
        var nextTick = startDate + 0.5
        for frame in frames {
            let receivedAt = startDate + frame.time
            while nextTick <= receivedAt {
                for message in processor.flush(now: nextTick) { record(message) }
                nextTick += 0.5
            }
            let inbound = InboundFrame(topic: frame.topic(), payload: frame.payload, retained: frame.retain, receivedAt: receivedAt)
            record(inbound, retain: frame.retain, qos: frame.qos, processor.process(inbound))
        }
        for tick in stride(from: nextTick, through: nextTick + 7_200, by: 5) {
            for message in processor.flush(now: tick) { record(message) }
        }
    }

    /// A tremor recording: its chunks through the processor, a tremor result per minute, and the
    /// answers to the recorder queries an app sends (samples, tremor, final, refusal).
    private mutating func runRecorder(_ scenario: TremorScenario) {
        runFrames(scenario.frames(), startDate: scenario.startDate)
        let device = DeviceID(scenario.deviceId)!
        let scheme = TopicScheme()
        let analyzer = TremorAnalyzer()
        let minute = TremorMinuteSchedule.minute(containing: scenario.startDate) + 60
        let result = analyzer.analyze(samples: scenario.samples.filter { (minute..<minute + 60).contains($0.startDate) }, from: minute, to: minute + 60)
        record(result.message(device: device, scheme: scheme))
        let requestTopic = scheme.recorderQueryTopic(device, requester: "contract-app")
        for kind in RecorderQuery.Kind.allCases {
            let replyTopic = RecorderReplyCheck.replyPrefix(for: "contract-app") + "/" + kind.name
            let request = #"{"from":\#(minute),"to":\#(minute + 59.99),"kind":"\#(kind.name)"}"#
            record(Sample(direction: "inbound", topic: requestTopic, qos: .atLeastOnce, retain: false, contentType: "application/json", userProperties: [], payload: request))
            let query = RecorderQuery(device: device, from: minute, to: minute + 59.99, kind: kind)
            let chunk: [UInt8]
            switch kind {
            case .accelerometer:
                let stored = scenario.samples.prefix(3).map { StoredRecorderSample(identifier: scenario.firstIdentifier, sample: $0) }
                chunk = RecorderQueryResponse.samplesChunk(query, index: 0, samples: Array(stored))
            case .tremor:
                chunk = RecorderQueryResponse.chunk(query, index: 0) { writer in
                    writer.field("results", array: { writer in result.write(to: &writer, device: device) })
                }
            }
            for payload in [chunk, RecorderQueryResponse.final(query, chunks: 1, count: 1)] {
                record(OutboundMessage(.response(replyTopic), in: scheme, payload: payload))
            }
        }
        let refusal = RecorderQueryError(.rangeTooLong, detail: "the range is longer than recorder.maxQueryRange")
        record(
            OutboundMessage(
                .response(RecorderReplyCheck.replyPrefix(for: "contract-app") + "/refused"), in: scheme,
                payload: RecorderQueryResponse.error(device: device, refusal)))
        record(Sample(direction: "inbound", topic: scheme.headphoneResetPoseTopic(DeviceID("buds-listen")!), qos: .atLeastOnce, retain: false, contentType: nil, userProperties: [], payload: "{}"))
    }

    // MARK: Recording

    /// Records a frame with the gateway's verdict, then the messages it produced.
    private mutating func record(_ frame: InboundFrame, retain: Bool, qos: MQTTQoS, _ result: FrameResult) {
        var rejectedAs: String?
        if case .rejected(let code, _) = result.outcome { rejectedAs = code.rawValue }
        let payload = String(decoding: frame.payload, as: UTF8.self)
        record(
            Sample(
                direction: "inbound", topic: frame.topic, qos: qos, retain: retain, contentType: frame.contentType, userProperties: [], payload: payload,
                rejectedAs: rejectedAs))
        for message in result.messages { record(message) }
    }

    private mutating func record(_ message: OutboundMessage) {
        let properties = message.userProperties.map { [$0.name, $0.value] }
        record(
            Sample(
                direction: "outbound", topic: message.topic, qos: message.qos, retain: message.retain, contentType: message.contentType,
                messageExpiryInterval: message.messageExpiryInterval, userProperties: properties, payload: message.payloadString))
    }

    private mutating func record(_ sample: Sample) {
        let key = sample.direction + " " + sample.topic
        guard perTopic[key, default: 0] < Self.samplesPerTopic else { return }
        perTopic[key, default: 0] += 1
        samples.append(sample)
    }
}
