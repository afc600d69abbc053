import Foundation
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

    /// The swing and stroke messages the engine derives from `frames` (other derivers' left out).
    static func run(_ frames: [DecodedFrame], context: DerivationContext = context()) -> [OutboundMessage] {
        var engine = DerivationEngine()
        return frames.flatMap { engine.receive($0, context: context) }.filter { $0.topic.hasSuffix("/swing") || $0.topic.hasSuffix("/tennis/stroke") }
    }

    @Test("swings are published on gateway/{id}/swing, QoS 1, with every contract field")
    func swingMessages() throws {
        let scenario = SwingScenario(seed: 91, actions: [.idle(seconds: 1), .swing(contact: true), .swing(contact: false), .idle(seconds: 1)])
        let messages = Self.run([Self.workout(.running, "baseball")] + Self.frames(scenario) + [Self.workout(.ended, "baseball")])
            .filter { $0.topic.hasSuffix("/swing") }
        try #require(messages.count == 2)
        for message in messages {
            #expect(message.topic == "gateway/watch-s9-1/swing")
            #expect(message.qos == 1 && !message.retain)
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
        #expect((before + atEnd).filter { $0.topic.hasSuffix("/swing") }.count == 1)
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
            #expect(message.qos == 1 && !message.retain)
            #expect(Set(message.jsonObject?.keys.map { $0 } ?? []) == ["deviceId", "eventId", "stroke", "timestamp", "forehandCount", "backhandCount"])
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
        #expect(always.map { $0.string("stroke") } == ["forehand", "backhand"], "without a hello the left wrist (watchOS default) is assumed")
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
