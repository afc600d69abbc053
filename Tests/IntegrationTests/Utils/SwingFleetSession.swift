import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetrySimulation

/// A fleet of watches playing seeded swing sessions, encoded up front and played into a broker
/// on the sessions' own clock (each batch leaves when it would leave the watch: at its last
/// sample, session time), with the ground truth of every swing.
struct SwingFleetSession: Sendable {
    struct Device: Sendable {
        let id: String
        let scenario: SwingScenario
        /// The swings the gateway must publish.
        var expected: [SwingGroundTruth] { scenario.groundTruth.filter(\.shouldPublish) }
        /// A swing's start in session seconds.
        func sessionTime(_ truth: SwingGroundTruth) -> Double { truth.startTimestamp - scenario.uptimeAtStart }
    }

    /// One message and when it leaves, session seconds.
    struct Departure: Sendable {
        let offset: Double
        let message: MQTTMessage
    }

    let devices: [Device]
    let departures: [Departure]
    let startDate: Double
    /// When the last batch leaves, session seconds.
    var duration: Double { departures.last?.offset ?? 0 }

    /// `count` watches, each `swings` full-speed swings (3 in 4 hit the ball) between short rests and walks.
    init(count: Int, swings: Int, prefix: String = "cl-watch", startDate: Double = Date().timeIntervalSince1970) {
        self.startDate = startDate
        devices = (0..<count).map { index in
            var actions: [SwingScenario.Action] = [.idle(seconds: 1 + Double(index % 5) * 0.2)]
            for swing in 0..<swings {
                actions.append(.swing(contact: (index + swing) % 4 != 0))
                actions.append(swing % 2 == 0 ? .idle(seconds: 1) : .walking(seconds: 1.5))
            }
            actions.append(.idle(seconds: 1))
            return Device(id: String(format: "%@-%02d", prefix, index), scenario: SwingScenario(seed: 17_000 + UInt64(index), actions: actions))
        }
        var departures: [Departure] = []
        for device in devices {
            let uptime = device.scenario.uptimeAtStart
            var last = 0.0
            for batch in device.scenario.arrivals {
                let (end, stream, payload): (Double, String, [UInt8])
                switch batch {
                case .accelerometer(let samples):
                    (end, stream, payload) = (samples.samples.last?.timestamp ?? uptime, "batched/accelerometer", FrameEncoder.encode(samples))
                case .deviceMotion(let samples):
                    (end, stream, payload) = (samples.samples.last?.timestamp ?? uptime, "batched/device-motion", FrameEncoder.encode(samples))
                }
                // The watch's own order is kept: a batch never leaves before the one before it.
                last = max(last, end - uptime)
                departures.append(Departure(offset: last, message: Self.message(device.id, stream, payload)))
            }
        }
        self.departures = departures.enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element)
    }

    static func message(_ id: String, _ stream: String, _ payload: [UInt8], retain: Bool = false) -> MQTTMessage {
        MQTTMessage(topic: "wearables/\(id)/\(stream)", payload: payload, qos: .atLeastOnce, retain: retain, properties: .init(contentType: "application/json"))
    }

    /// Every watch says hello (retained), waits for its availability (`collector` must receive
    /// `gateway/+/availability`) and starts its workout. In partitioned mode a device's owner
    /// subscribes its streams on its hello and publishes the availability only once the broker
    /// acknowledged that subscription: what a device sends before it may reach nobody.
    func begin(with client: MQTTClient, availability collector: MessageCollector) async throws {
        for device in devices {
            let descriptor = DeviceDescriptor(
                model: "Apple Watch Series 9", platform: "watchOS", osVersion: "10.1", app: "com.example.swing", authorization: .authorized,
                wristLocation: .right, crownOrientation: .right)
            try await client.send(Self.message(device.id, "hello", FrameEncoder.encode(descriptor), retain: true))
        }
        let topics = Set(devices.map { "gateway/\($0.id)/availability" })
        try await collector.wait(timeout: 30, "the availability of \(topics.count) watches") { messages in
            topics.isSubset(of: Set(messages.map(\.topic)))
        }
        for device in devices {
            try await client.send(Self.message(device.id, "workout", FrameEncoder.encode(WorkoutEvent(state: .running, activityType: "baseball", date: startDate))))
        }
    }

    /// Plays the batches on the session clock from `clockStart` (the watches' real time, not a
    /// synchronisation: the test waits for observed events, never for this clock).
    func play(with client: MQTTClient, clockStart: ContinuousClock.Instant) async throws {
        for departure in departures {
            try await Task.sleep(until: clockStart + .seconds(departure.offset), clock: .continuous)
            try await client.send(departure.message)
        }
    }

    /// Every watch ends its workout (pending swings are decided after `session.endGrace`).
    func end(with client: MQTTClient) async throws {
        for device in devices {
            try await client.send(
                Self.message(device.id, "workout", FrameEncoder.encode(WorkoutEvent(state: .ended, activityType: "baseball", date: startDate + duration + 1))))
        }
    }

    /// How the published swings match the ground truth (start within 5 ms).
    struct Tally: CustomStringConvertible {
        /// Per device, per expected swing: how many published swings matched it.
        var matches: [String: [Int]] = [:]
        /// Published swings that match no expected swing: (device, startTimestamp).
        var unmatched: [(String, Double)] = []

        func count(_ device: String, _ index: Int) -> Int { matches[device]?[index] ?? 0 }
        var duplicates: Int { matches.values.joined().filter { $0 > 1 }.count }
        var published: Int { matches.values.joined().filter { $0 >= 1 }.count }
        /// The most copies of one expected swing.
        var maximumCopies: Int { matches.values.joined().max() ?? 0 }
        /// The devices with a swing published more than once.
        var duplicatedDevices: Set<String> { Set(matches.filter { $0.value.contains { $0 > 1 } }.keys) }

        var description: String {
            let missing = matches.flatMap { device, counts in counts.enumerated().filter { $0.element == 0 }.map { "\(device)#\($0.offset)" } }.sorted()
            return "published \(published), duplicates \(duplicates), missing \(missing), unmatched \(unmatched)"
        }
    }

    /// The swings that reached the observer after a later swing of the same device (by their
    /// `startTimestamp`), as "device@start"; a copy of one already seen does not count.
    func outOfOrder(_ messages: [MQTTMessage]) -> [String] {
        let ids = Set(devices.map(\.id))
        var latest: [String: Double] = [:]
        var found: [String] = []
        for message in messages {
            let levels = message.topic.split(separator: "/")
            guard levels.count == 3, levels[0] == "gateway", levels[2] == "swing", ids.contains(String(levels[1])),
                let object = (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any],
                let start = object["startTimestamp"] as? Double
            else { continue }
            let device = String(levels[1])
            if let last = latest[device], start < last - 0.005 { found.append("\(device)@\(start)") }
            latest[device] = max(latest[device] ?? start, start)
        }
        return found
    }

    func tally(_ messages: [MQTTMessage]) -> Tally {
        var tally = Tally()
        for device in devices { tally.matches[device.id] = Array(repeating: 0, count: device.expected.count) }
        let byID = Dictionary(uniqueKeysWithValues: devices.map { ($0.id, $0) })
        for message in messages {
            let levels = message.topic.split(separator: "/")
            guard levels.count == 3, levels[0] == "gateway", levels[2] == "swing", let device = byID[String(levels[1])],
                let object = (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any],
                let start = object["startTimestamp"] as? Double
            else { continue }
            if let index = device.expected.firstIndex(where: { abs($0.startTimestamp - start) < 0.005 }) {
                tally.matches[device.id]![index] += 1
            } else {
                tally.unmatched.append((device.id, start))
            }
        }
        return tally
    }
}
