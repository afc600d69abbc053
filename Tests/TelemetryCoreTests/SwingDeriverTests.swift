import TelemetryCore
import TelemetrySimulation
import Testing

/// The swing deriver inside the derivation engine: topics, payloads, event ids, workouts.
@Suite("Swing deriver")
struct SwingDeriverTests {
    static let device = DeviceID("watch-s9-1")!

    static func context(wrist: WristLocation? = .right) -> DerivationContext {
        let descriptor = DeviceDescriptor(
            model: "Apple Watch Series 9", platform: "watchOS", osVersion: "10.1", app: "com.example.swing", authorization: .authorized,
            wristLocation: wrist, crownOrientation: .right)
        return DerivationContext(device: device, receivedAt: 1_700_000_000, descriptor: wrist == nil ? nil : descriptor)
    }

    static func workout(_ state: WorkoutState, _ activity: String, at date: Double = 1_700_000_000) -> DecodedFrame {
        .workout(WorkoutEvent(state: state, activityType: activity, date: date), sequence: nil)
    }

    static func frames(_ scenario: SwingScenario) -> [DecodedFrame] {
        scenario.arrivals.map { batch in
            switch batch {
            case .accelerometer(let batch): .batchedAccelerometer(batch)
            case .deviceMotion(let batch): .batchedDeviceMotion(batch)
            }
        }
    }

    /// The swing and stroke messages the engine derives from `frames` (other derivers' left out);
    /// a session that pauses or ends is finished right away, as when its end grace passed.
    static func run(_ frames: [DecodedFrame], context: DerivationContext = context()) -> [OutboundMessage] {
        var engine = DerivationEngine()
        return frames.flatMap { frame in
            engine.receive(frame, context: context) + (frame.stopsWorkout ? engine.finishSession(of: device, context: context) : [])
        }.filter { $0.topic.hasSuffix("/swing") || $0.topic.hasSuffix("/tennis/stroke") }
    }

    @Test("swings are published on gateway/{id}/swing, QoS 1, with every contract field")
    func swingMessages() throws {
        let scenario = SwingScenario(seed: 91, actions: [.idle(seconds: 1), .swing(contact: true), .swing(contact: false), .idle(seconds: 1)])
        let messages = Self.run([Self.workout(.running, "baseball")] + Self.frames(scenario) + [Self.workout(.ended, "baseball")])
            .filter { $0.topic.hasSuffix("/swing") }
        try #require(messages.count == 2)
        for message in messages {
            #expect(message.topic == "gateway/watch-s9-1/swing")
            #expect(message.qos == .atLeastOnce && !message.retain)
            #expect(message.string("deviceId") == "watch-s9-1")
            #expect(message.string("eventId")?.count == 16)
        }
        let contact = try #require(messages[0].jsonObject)
        let truth = scenario.groundTruth[0]
        #expect(contact["contact"] as? Bool == true)
        let start = try #require(contact["startTimestamp"] as? Double)
        let impact = try #require(contact["impactTimestamp"] as? Double)
        let timeToContact = try #require(contact["timeToContact"] as? Double)
        #expect(abs(start - truth.startTimestamp) < 0.005)
        #expect(abs(impact - truth.impactTimestamp!) < 0.002)
        #expect(abs(timeToContact - (impact - start)) < 2e-6)
        #expect((contact["peakRotationRate"] as? Double ?? 0) > 8)
        #expect((contact["rotationAngle"] as? Double ?? 0) > 1)
        #expect(Set(contact.keys) == ["deviceId", "eventId", "startTimestamp", "impactTimestamp", "timeToContact", "contact", "peakRotationRate", "rotationAngle"])

        let miss = try #require(messages[1].jsonObject)
        #expect(miss["contact"] as? Bool == false)
        #expect(Set(miss.keys) == ["deviceId", "eventId", "startTimestamp", "contact", "peakRotationRate", "rotationAngle"])
    }

    @Test("the same batches give the same event ids (a redelivery or a restart is idempotent downstream)")
    func eventIDs() {
        let scenario = SwingScenario(seed: 92, actions: [.idle(seconds: 1), .swing(contact: true), .swing(contact: false), .swing(contact: true)])
        let frames = [Self.workout(.running, "baseball")] + Self.frames(scenario)
        let first = Self.run(frames).compactMap { $0.string("eventId") }
        let second = Self.run(frames).compactMap { $0.string("eventId") }
        #expect(first.count == 3)
        #expect(first == second)
        #expect(Set(first).count == 3)
    }

    @Test("ending the workout decides a swing still pending")
    func workoutEndFlushes() throws {
        let scenario = SwingScenario(seed: 93, actions: [.idle(seconds: 1), .swing(contact: true)])
        let impact = try #require(scenario.groundTruth[0].impactTimestamp)
        // The streams stop 30 ms after the contact (the watch ended the workout).
        let frames: [DecodedFrame] = Self.frames(scenario).compactMap { frame in
            switch frame {
            case .batchedAccelerometer(var batch):
                batch.samples = batch.samples.filter { $0.timestamp < impact + 0.03 }
                return batch.samples.isEmpty ? nil : .batchedAccelerometer(batch)
            case .batchedDeviceMotion(var batch):
                batch.samples = batch.samples.filter { $0.timestamp < impact + 0.03 }
                return batch.samples.isEmpty ? nil : .batchedDeviceMotion(batch)
            default:
                return frame
            }
        }
        var engine = DerivationEngine()
        let context = Self.context()
        var before: [OutboundMessage] = []
        for frame in [Self.workout(.running, "baseball")] + frames { before += engine.receive(frame, context: context) }
        #expect(!before.contains { $0.topic.hasSuffix("/swing") }, "undecided before the end")
        let atEnd = engine.receive(Self.workout(.ended, "baseball"), context: context)
        #expect(!atEnd.contains { $0.topic.hasSuffix("/swing") }, "the end only opens the grace: the last batch may still come")
        let finished = engine.finishSession(of: Self.device, context: context)
        #expect((before + atEnd + finished).filter { $0.topic.hasSuffix("/swing") }.count == 1)
        #expect(engine.finishSession(of: Self.device, context: context).isEmpty, "decided once")
    }

    @Test("a swing completed by the batch arriving after the end, within the grace, is published through the pipeline")
    func lastBatchAfterEnd() throws {
        let scenario = SwingScenario(seed: 93, actions: [.idle(seconds: 1), .swing(contact: true), .idle(seconds: 1)])
        let frames = Self.frames(scenario)
        let impact = try #require(scenario.groundTruth[0].impactTimestamp)
        // The batch holding the impact, and everything after it, arrives after the end.
        let late = try #require(frames.firstIndex { frame in
            if case .batchedAccelerometer(let batch) = frame { return batch.samples.last!.timestamp >= impact }
            return false
        })
        let policy = AccessPolicy(
            registry: DeviceRegistry(isOpen: true, defaultEntitlements: [.motionBatched, .motionDevice]),
            capabilities: AccessFixtures.table)
        var processor = FrameProcessor(configuration: .init(accessPolicy: policy))
        func send(_ stream: String, _ payload: [UInt8], at time: Double) -> [OutboundMessage] {
            processor.process(InboundFrame(topic: "wearables/\(Self.device)/\(stream)", payload: payload, receivedAt: time)).messages
        }
        var messages = send("hello", FrameEncoder.encode(AccessFixtures.series9), at: 0)
        messages += send("workout", FrameEncoder.encode(WorkoutEvent(state: .running, activityType: "baseball", date: 1_700_000_000)), at: 1)
        for (index, frame) in frames[..<late].enumerated() { messages += send(frame.stream.rawValue, frame.contractJSON, at: 2 + Double(index) / 2) }
        let endedAt = 100.0
        messages += send("workout", Array(#"{"state":"ended","date":1700000090}"#.utf8), at: endedAt)
        #expect(!messages.contains { $0.topic.hasSuffix("/swing") })
        for frame in frames[late...] { messages += send(frame.stream.rawValue, frame.contractJSON, at: endedAt + 0.2) }
        messages += processor.flush(now: endedAt + 2)  // at the limit: not finished yet
        messages += processor.flush(now: endedAt + 2.5)
        #expect(!messages.contains { $0.topic.hasSuffix("/errors") }, "\(messages.filter { $0.topic.hasSuffix("/errors") }.map(\.payloadString))")
        let swings = messages.filter { $0.topic.hasSuffix("/swing") }
        try #require(swings.count == 1)
        #expect(swings[0].jsonObject?["contact"] as? Bool == true, "the impact came with the late batch")
        #expect(abs((swings[0].number("impactTimestamp") ?? 0) - impact) < 0.002)
    }

    // MARK: Tennis

    static func motionFrames(_ rally: TennisRallyScenario) -> [DecodedFrame] { rally.frames.map { .motion($0) } }

    @Test("tennis strokes on gateway/{id}/tennis/stroke with running counts, classified by the hello's wrist", arguments: [WristLocation.left, .right])
    func strokes(wrist: WristLocation) throws {
        let sequence: [TennisStrokeKind] = [.forehand, .backhand, .backhand, .forehand, .forehand]
        let rally = TennisRallyScenario(seed: 94, wrist: wrist, sequence: sequence)
        let messages = Self.run([Self.workout(.running, "tennis")] + Self.motionFrames(rally), context: Self.context(wrist: wrist))
        try #require(messages.count == sequence.count)
        #expect(messages.map { $0.string("stroke") } == sequence.map(\.rawValue))
        #expect(messages.map { $0.number("forehandCount") } == [1, 1, 1, 2, 3])
        #expect(messages.map { $0.number("backhandCount") } == [0, 1, 2, 2, 2])
        for message in messages {
            #expect(message.topic == "gateway/watch-s9-1/tennis/stroke")
            #expect(message.qos == .atLeastOnce && !message.retain)
            #expect(Set(message.jsonObject?.keys.map { $0 } ?? []) == ["deviceId", "eventId", "stroke", "rotation", "timestamp", "forehandCount", "backhandCount", "unknownCount"])
        }
        // The same motion on the other wrist swaps forehands and backhands.
        let other: WristLocation = wrist == .left ? .right : .left
        let swapped = Self.run([Self.workout(.running, "tennis")] + Self.motionFrames(rally), context: Self.context(wrist: other))
        #expect(swapped.map { $0.string("stroke") } == sequence.map { $0 == .forehand ? "backhand" : "forehand" })
    }

    @Test("counts run per workout: a new workout resets them, a pause does not")
    func countsPerWorkout() {
        let rally = TennisRallyScenario(seed: 95, wrist: .right, sequence: [.forehand, .backhand, .forehand])
        let frames = Self.motionFrames(rally)
        let split = frames.count / 2
        let firstWorkout = Self.run(
            [Self.workout(.running, "tennis")] + frames[..<split] + [Self.workout(.paused, "tennis"), Self.workout(.running, "tennis")] + frames[split...])
        #expect(firstWorkout.map { $0.number("forehandCount")! + $0.number("backhandCount")! } == [1, 2, 3])

        let rally2 = TennisRallyScenario(seed: 96, wrist: .right, sequence: [.backhand, .backhand], uptimeAtStart: 53_000)
        let twoWorkouts = Self.run(
            [Self.workout(.running, "tennis")] + frames + [Self.workout(.ended, "tennis"), Self.workout(.running, "tennis", at: 1_700_001_000)]
                + Self.motionFrames(rally2))
        #expect(twoWorkouts.map { $0.number("forehandCount")! } == [1, 1, 2, 0, 0])
        #expect(twoWorkouts.map { $0.number("backhandCount")! } == [0, 1, 1, 1, 2])
    }

    @Test("no strokes outside a tennis workout, unless configured to count always")
    func gating() {
        let rally = TennisRallyScenario(seed: 97, wrist: .left, sequence: [.forehand, .backhand])
        #expect(Self.run(Self.motionFrames(rally)).isEmpty)
        #expect(Self.run([Self.workout(.running, "baseball")] + Self.motionFrames(rally)).isEmpty)
        #expect(Self.run([Self.workout(.running, "tennis"), Self.workout(.ended, "tennis")] + Self.motionFrames(rally)).isEmpty)
        var configuration = DerivationConfiguration()
        configuration.swing.tennis.activityTypes = []
        var engine = DerivationEngine(configuration: configuration)
        let always = Self.motionFrames(rally).flatMap { engine.receive($0, context: Self.context(wrist: nil)) }.filter { $0.topic.hasSuffix("/tennis/stroke") }
        #expect(always.map { $0.string("stroke") } == ["unknown", "unknown"], "without a hello no wrist is assumed")
        // The rotation is kept: a left-wrist forehand turns clockwise, a backhand the other way.
        #expect(always.map { $0.string("rotation") } == ["clockwise", "counterclockwise"])
    }

    @Test("strokes of a watch without wristLocation are unknown, counted apart, until a hello says the wrist")
    func unknownWrist() throws {
        let rally = TennisRallyScenario(seed: 98, wrist: .right, sequence: [.forehand, .backhand, .forehand, .backhand])
        let frames = Self.motionFrames(rally)
        let withoutWrist = Self.context(wrist: .right)
        var anonymous = withoutWrist
        anonymous.descriptor?.wristLocation = nil
        var engine = DerivationEngine()
        var messages = engine.receive(Self.workout(.running, "tennis"), context: anonymous)
        let split = frames.count / 2
        for frame in frames[..<split] { messages += engine.receive(frame, context: anonymous) }
        for frame in frames[split...] { messages += engine.receive(frame, context: withoutWrist) }
        let strokes = messages.filter { $0.topic.hasSuffix("/tennis/stroke") }
        try #require(strokes.count == 4)
        let unknown = strokes.prefix { $0.string("stroke") == "unknown" }
        #expect(!unknown.isEmpty && unknown.count < 4, "the split falls between strokes")
        #expect(strokes.dropFirst(unknown.count).map { $0.string("stroke") } == ["forehand", "backhand", "forehand", "backhand"].suffix(4 - unknown.count).map { Optional($0) })
        #expect(unknown.map { $0.number("unknownCount") } == (1...unknown.count).map { Double($0) })
        #expect(strokes.map { $0.string("rotation") } == ["counterclockwise", "clockwise", "counterclockwise", "clockwise"], "right wrist: forehand counter-clockwise")
        let last = try #require(strokes.last)
        #expect((last.number("forehandCount") ?? 0) + (last.number("backhandCount") ?? 0) == Double(4 - unknown.count))
        #expect(strokes.last?.number("unknownCount") == Double(unknown.count), "unknown strokes stay counted apart")
        #expect(TennisStrokeRotation.clockwise.kind(on: nil) == .unknown)
        #expect(TennisStrokeRotation.clockwise.kind(on: .left) == .forehand && TennisStrokeRotation.clockwise.kind(on: .right) == .backhand)
    }
}

/// The simulator's ordinary traffic (`wearable-sim`) through the deriver.
@Suite("Swing deriver on simulator traffic")
struct SwingSimulatorTrafficTests {
    @Test("a baseball watch in the traffic generator yields contact swings; a walker nothing")
    func trafficGenerator() throws {
        let devices = [SimulatedDevice.appleWatchSeries9(id: "bat-1", activity: .baseball), .appleWatchSeries9(id: "walk-1", activity: .walking)]
        var generator = TrafficGenerator(seed: 5, devices: devices, startDate: 1_700_000_000)
        var engine = DerivationEngine()
        var swings: [OutboundMessage] = []
        for frame in generator.advance(to: 40) {
            guard let stream = InboundStream(rawValue: frame.stream), let decoded = try? FrameDecoder.decodeJSON(frame.payload, stream: stream).get() else {
                continue
            }
            let device = try #require(DeviceID(frame.deviceId))
            let context = DerivationContext(device: device, receivedAt: frame.time, descriptor: devices.first { $0.id == frame.deviceId }?.descriptor)
            swings += engine.receive(decoded, context: context).filter { $0.topic.hasSuffix("/swing") }
        }
        // Swings every 8 s from 0.5–2.5 s: four or five within 40 s, each hitting the ball.
        #expect((4...5).contains(swings.count), "\(swings)")
        #expect(swings.allSatisfy { $0.topic == "gateway/bat-1/swing" && $0.jsonObject?["contact"] as? Bool == true })
        #expect(swings.allSatisfy { (0.15...0.3).contains($0.number("timeToContact") ?? 0) }, "contact 0.24 s after a smooth onset")
    }
}
