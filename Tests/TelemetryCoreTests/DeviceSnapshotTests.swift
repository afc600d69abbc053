import Foundation
import Testing
import TelemetrySimulation

@testable import TelemetryCore

/// A restart in the middle of a scenario: every device's snapshot goes through JSON (as the
/// gateway stores it) into a new processor, which must then publish exactly what the
/// uninterrupted processor publishes.
@Suite("Device snapshots across a restart")
struct DeviceSnapshotTests {
    /// A scenario's frames with their arrival times (Unix epoch seconds).
    struct TimedFrame {
        var frame: SimulatedFrame
        var receivedAt: Double
    }

    static let policy = AccessPolicy(registry: .unrestricted, capabilities: AccessFixtures.table)

    static func processor(journalIdentity: UInt64? = nil) -> FrameProcessor {
        FrameProcessor(configuration: .init(accessPolicy: policy, journalIdentity: journalIdentity))
    }

    /// Feeds frames in order with a tick every half second of arrival time (as the gateway's
    /// ticker does), restarting from snapshots before frame `restartAt` when given.
    static func run(_ frames: [TimedFrame], restartAt: Int? = nil, tail: Double = 600) throws -> [OutboundMessage] {
        var processor = processor()
        var messages: [OutboundMessage] = []
        var nextTick = (frames.first?.receivedAt ?? 0) + 0.5
        func tick(until date: Double) {
            while nextTick <= date {
                messages += processor.flush(now: nextTick)
                nextTick += 0.5
            }
        }
        for (index, timed) in frames.enumerated() {
            tick(until: timed.receivedAt)
            if index == restartAt { processor = try restarted(processor, devices: Set(frames.map(\.frame.deviceId))) }
            let inbound = InboundFrame(
                topic: timed.frame.topic(), payload: timed.frame.payload, retained: timed.frame.retain, receivedAt: timed.receivedAt)
            messages += processor.process(inbound).messages
        }
        tick(until: (frames.last?.receivedAt ?? 0) + tail)
        return messages
    }

    /// A new processor with every device's snapshot, encoded and decoded as JSON.
    static func restarted(_ old: FrameProcessor, devices: Set<String>, journalIdentity: UInt64? = nil) throws -> FrameProcessor {
        var fresh = processor(journalIdentity: journalIdentity)
        for id in devices.compactMap(DeviceID.init) {
            guard let snapshot = old.snapshot(of: id) else { continue }
            let stored = try JSONEncoder().encode(snapshot)
            let restored = try JSONDecoder().decode(DeviceSnapshot.self, from: stored)
            let complete = fresh.restore(restored, of: id)
            #expect(complete, "\(id)")
        }
        return fresh
    }

    /// The messages as text lines, so a failure shows which message differs.
    static func text(_ messages: [OutboundMessage]) -> [String] {
        messages.map { $0.topic + " " + String(decoding: $0.payload, as: UTF8.self) }
    }

    static func dive(_ scenario: DiveScenario) -> [TimedFrame] {
        let start = 1_700_000_000.0
        return scenario.frames(startDate: start).map { TimedFrame(frame: $0, receivedAt: start + $0.time) }
    }

    @Test("a restart mid-dive: same depth states, one dive summary with the same figures", arguments: DiveScenario.presets)
    func midDive(scenario: DiveScenario) throws {
        let frames = Self.dive(scenario)
        let uninterrupted = try Self.run(frames)
        let submergeIndex = frames.firstIndex { $0.receivedAt > 1_700_000_000 + scenario.submergeTime + 1 } ?? frames.count / 2
        let interrupted = try Self.run(frames, restartAt: submergeIndex)
        #expect(interrupted.filter { $0.topic.hasSuffix("/submersion/dive") }.count == 1, "\(scenario.name)")
        #expect(interrupted.map(\.topic) == uninterrupted.map(\.topic), "\(scenario.name)")
        #expect(Self.text(interrupted) == Self.text(uninterrupted), "\(scenario.name)")
    }

    @Test("without the snapshot the dive after a restart is lost (the control)")
    func midDiveWithoutSnapshot() throws {
        let scenario = DiveScenario.presets[0]
        let frames = Self.dive(scenario)
        let submergeIndex = try #require(frames.firstIndex { $0.receivedAt > 1_700_000_000 + scenario.submergeTime + 1 })
        // Frames before the restart went to a processor that then died; the new one saw no hello.
        let afterRestart = try Self.run([frames[0]] + frames[submergeIndex...])
        let uninterrupted = try Self.run(frames)
        #expect(afterRestart.filter { $0.topic.hasSuffix("/submersion/dive") }.map(\.payload)
            != uninterrupted.filter { $0.topic.hasSuffix("/submersion/dive") }.map(\.payload))
    }

    @Test("a restart mid-listening: poses stay relative to the same reference, same connection events")
    func midListening() throws {
        let scenario = HeadphoneScenario.listeningSession()
        let frames = scenario.frames.map { TimedFrame(frame: $0, receivedAt: 1_767_225_600 + $0.time) }
        let uninterrupted = try Self.run(frames, tail: 30)
        let interrupted = try Self.run(frames, restartAt: frames.count / 2, tail: 30)
        #expect(uninterrupted.contains { $0.topic.hasSuffix("/headphone/pose") })
        #expect(interrupted.map(\.topic) == uninterrupted.map(\.topic))
        #expect(Self.text(interrupted) == Self.text(uninterrupted))
    }

    @Test("a restart mid-run: the same run segments and workout summary")
    func midRun() throws {
        let scenario = RunScenario.urbanRun(seed: 3)
        let start = 1_700_000_000.0
        let frames = scenario.frames(startDate: start).map { TimedFrame(frame: $0, receivedAt: start + $0.time) }
        let uninterrupted = try Self.run(frames)
        let interrupted = try Self.run(frames, restartAt: frames.count / 2)
        #expect(uninterrupted.contains { $0.topic.hasSuffix("/pedometer/segment") || $0.topic.hasSuffix("/pedometer/workout") })
        #expect(interrupted.map(\.topic) == uninterrupted.map(\.topic))
        #expect(Self.text(interrupted) == Self.text(uninterrupted))
    }

    @Test("a hello creates no derivation state; eviction returns the snapshot and forgets the device")
    func helloAndEviction() throws {
        var processor = Self.processor()
        let hello = #"{"model":"Apple Watch Series 9","platform":"watchOS","osVersion":"10.2","app":"a","authorization":"authorized"}"#
        _ = processor.process(InboundFrame(topic: "wearables/w-1/hello", payload: Array(hello.utf8), receivedAt: 100))
        _ = processor.process(InboundFrame(topic: "wearables/w-2/hello", payload: Array(hello.utf8), receivedAt: 200))
        let first = try #require(DeviceID("w-1"))
        let snapshot = try #require(processor.snapshot(of: first))
        #expect(snapshot.derivations == nil && snapshot.access != nil && snapshot.lastSeen == 100)
        let changed = processor.takeChangedDevices()
        #expect(changed.map(\.rawValue) == ["w-1", "w-2"])
        #expect(processor.evictionCandidates(idleSince: 150, maxResident: 10).map(\.rawValue) == ["w-1"])
        #expect(processor.evictionCandidates(idleSince: 0, maxResident: 1).map(\.rawValue) == ["w-1"])
        #expect(processor.evictionCandidates(idleSince: 0, maxResident: 2).isEmpty)
        let taken = processor.evict(first)
        let evicted = try #require(taken)
        #expect(!processor.isResident(first) && processor.residentDeviceCount == 1)
        let restored = processor.restore(evicted, of: first)
        #expect(restored && processor.isResident(first))
        let overwritten = processor.restore(evicted, of: first)
        #expect(!overwritten, "a device with state is not overwritten")
    }

    @Test("a frame's result says whether its effect lives in the snapshot: applied control and derivation frames do; rejected, repeated and batched ones do not")
    func changesSnapshot() throws {
        var processor = Self.processor()
        var generator = TrafficGenerator(seed: 7, devices: SimulatedFleet.mixed(count: 5), startDate: 1_700_000_000)
        var counts = (changing: 0, batched: 0, rejected: 0)
        for (index, simulated) in generator.advance(to: 31).enumerated() {
            // Every fifth frame arrives garbled first: rejected, it changes nothing kept.
            if index % 5 == 0 {
                let garbled = processor.process(
                    InboundFrame(topic: simulated.topic(), payload: Array("{\"x\":".utf8), receivedAt: 1_700_000_000 + simulated.time))
                guard case .rejected = garbled.outcome else { throw SnapshotTestFailure("a garbled frame was \(garbled.outcome)") }
                #expect(!garbled.changesSnapshot)
                counts.rejected += 1
            }
            var frame = InboundFrame(
                topic: simulated.topic(), payload: simulated.payload, retained: simulated.retain, receivedAt: 1_700_000_000 + simulated.time)
            frame.journalSequence = UInt64(index + 1)
            let result = processor.process(frame)
            switch result.outcome {
            case .accepted(let stream):
                #expect(result.changesSnapshot == DeviceSnapshot.canChange(from: stream), "\(stream)")
                if result.changesSnapshot { counts.changing += 1 } else { counts.batched += 1 }
            case .rejected, .alreadyApplied:
                #expect(!result.changesSnapshot)
            }
            // The same journal record replayed: already applied, nothing changes.
            let again = processor.process(frame)
            guard case .alreadyApplied = again.outcome else { continue }
            #expect(!again.changesSnapshot)
        }
        #expect(counts.changing > 10 && counts.batched > 10 && counts.rejected > 10, "\(counts)")
    }
}

extension DeviceSnapshotTests {
    @Test("a message in a snapshot: a UTF-8 payload is written as text, any other as bytes; both, and the bytes earlier snapshots wrote, read back equal")
    func messagePayloads() throws {
        var text = OutboundMessage(.connection, of: DeviceID("watch-1")!, in: TopicScheme(), payload: Array(#"{"state":"connected","ü":"\"q\""}"#.utf8))
        text.userProperties = [UserProperty(name: "epoch", value: "3")]
        let binary = OutboundMessage(topic: "gateway/watch-1/raw", payload: [0xFF, 0x00, 0xC3], contentType: nil)
        let encoded = try JSONEncoder().encode([text, binary])
        let json = try #require(JSONSerialization.jsonObject(with: encoded) as? [[String: Any]])
        #expect(json[0]["payload"] as? String == text.payloadString)
        #expect((json[1]["payload"] as? [Int]) == [255, 0, 195])
        #expect(try JSONDecoder().decode([OutboundMessage].self, from: encoded) == [text, binary])
        // An earlier snapshot's message, its payload as an array of byte values.
        let earlier = #"{"topic":"gateway/watch-1/connection","payload":[123,125],"qos":1,"retain":true,"userProperties":[],"device":"watch-1","leaf":"connection"}"#
        let decoded = try JSONDecoder().decode(OutboundMessage.self, from: Data(earlier.utf8))
        #expect(decoded.payload == Array("{}".utf8))
        #expect(decoded.device == DeviceID("watch-1") && decoded.leaf == .connection && decoded.retain)
    }
}

private struct SnapshotTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
