import Foundation
import Testing
import TelemetrySimulation

@testable import TelemetryCore

/// A crash whose last stored snapshot is newer than the journal's oldest unreleased frame:
/// the journal replays frames the restored state already contains (their outputs were not yet
/// acknowledged). Each frame carries its journal sequence; the snapshot keeps the last one
/// applied, and the restored processor must not apply a replayed frame twice.
@Suite("Journal replay onto a restored snapshot")
struct JournalReplayTests {
    typealias TimedFrame = DeviceSnapshotTests.TimedFrame

    static func inbound(_ timed: TimedFrame, sequence: Int?) -> InboundFrame {
        var frame = InboundFrame(topic: timed.frame.topic(), payload: timed.frame.payload, retained: timed.frame.retain, receivedAt: timed.receivedAt)
        frame.journalSequence = sequence.map(UInt64.init)
        return frame
    }

    /// Runs `frames` (journal sequence = index + 1, or none with `sequenced` false) with a tick
    /// every half second. Before frame `restartAt` the processor restarts from JSON snapshots
    /// and the journal replays frames `replayFrom..<restartAt`, as after a crash whose last
    /// snapshot came after those frames. Returns what was published from the ticks before frame
    /// `restartAt` on (replays apart) and the replayed frames' results. Without a restart, the
    /// uninterrupted run's messages from the same point.
    static func run(
        _ frames: [TimedFrame], restartAt: Int, replayFrom: Int?, sequenced: Bool = true, journalAfterRestart: UInt64 = journal, tail: Double = 600
    ) throws -> (messages: [OutboundMessage], replayed: [FrameResult]) {
        var processor = DeviceSnapshotTests.processor(journalIdentity: journal)
        var messages: [OutboundMessage] = []
        var replayed: [FrameResult] = []
        var nextTick = (frames.first?.receivedAt ?? 0) + 0.5
        func tick(until date: Double) {
            while nextTick <= date {
                messages += processor.flush(now: nextTick)
                nextTick += 0.5
            }
        }
        for (index, timed) in frames.enumerated() {
            if index == restartAt { messages = [] }
            tick(until: timed.receivedAt)
            if index == restartAt, let replayFrom {
                processor = try DeviceSnapshotTests.restarted(processor, devices: Set(frames.map(\.frame.deviceId)), journalIdentity: journalAfterRestart)
                for replay in replayFrom..<index { replayed.append(processor.process(inbound(frames[replay], sequence: sequenced ? replay + 1 : nil))) }
            }
            messages += processor.process(inbound(timed, sequence: sequenced ? index + 1 : nil)).messages
        }
        tick(until: (frames.last?.receivedAt ?? 0) + tail)
        return (messages, replayed)
    }

    /// The identity of the journal the frames' sequences belong to.
    static let journal: UInt64 = 0x5EED

    static func runFrames() -> [TimedFrame] {
        let start = 1_700_000_000.0
        return RunScenario.urbanRun(seed: 3).frames(startDate: start).map { TimedFrame(frame: $0, receivedAt: start + $0.time) }
    }

    @Test("frames the restored snapshot contains are not applied again; what follows matches an uninterrupted run")
    func replayedFramesAreSkipped() throws {
        let frames = Self.runFrames()
        let restartAt = frames.count / 2
        let expected = try Self.run(frames, restartAt: restartAt, replayFrom: nil).messages
        let interrupted = try Self.run(frames, restartAt: restartAt, replayFrom: restartAt - 40)
        #expect(interrupted.replayed.count == 40)
        for result in interrupted.replayed {
            guard case .alreadyApplied = result.outcome else {
                Issue.record("a replayed frame was applied again: \(result.outcome)")
                continue
            }
            #expect(result.messages.isEmpty)
        }
        #expect(!expected.isEmpty)
        #expect(DeviceSnapshotTests.text(interrupted.messages) == DeviceSnapshotTests.text(expected))
    }

    @Test("the control: replayed frames without journal sequences are applied twice, and the outputs differ")
    func withoutSequencesFramesApplyTwice() throws {
        let frames = Self.runFrames()
        let restartAt = frames.count / 2
        let expected = try Self.run(frames, restartAt: restartAt, replayFrom: nil).messages
        let interrupted = try Self.run(frames, restartAt: restartAt, replayFrom: restartAt - 40, sequenced: false)
        #expect(DeviceSnapshotTests.text(interrupted.messages) != DeviceSnapshotTests.text(expected), "applying the replayed frames twice went unnoticed")
    }

    @Test("a snapshot taken with another journal (another instance's, or one made anew) skips nothing: its numbers say nothing here")
    func anotherJournalSkipsNothing() throws {
        let frames = Self.runFrames()
        let restartAt = frames.count / 2
        let interrupted = try Self.run(frames, restartAt: restartAt, replayFrom: restartAt - 40, journalAfterRestart: 0xD1FF)
        #expect(interrupted.replayed.allSatisfy { if case .alreadyApplied = $0.outcome { false } else { true } })
    }

    @Test("a snapshot keeps the applied journal sequence and the unacknowledged outputs through JSON")
    func snapshotCarriesSequenceAndOutputs() throws {
        var snapshot = DeviceSnapshot(lastSeen: 1, access: nil, connection: nil, derivations: nil, appliedJournalSequence: 41, journalIdentity: 7)
        snapshot.unacknowledgedOutputs = [
            OutboundMessage(topic: "gateway/w/tennis/stroke", payload: Array(#"{"eventId":"e1"}"#.utf8), userProperties: [UserProperty(name: "a", value: "b")])
        ]
        let decoded = try JSONDecoder().decode(DeviceSnapshot.self, from: try JSONEncoder().encode(snapshot))
        #expect(decoded.appliedJournalSequence == 41 && decoded.appliedJournalIdentity == 7)
        #expect(decoded.unacknowledgedOutputs == snapshot.unacknowledgedOutputs)
        // A snapshot stored before these fields existed still decodes.
        let old = try JSONDecoder().decode(DeviceSnapshot.self, from: Data(#"{"format":1,"lastSeen":5}"#.utf8))
        #expect(old.appliedJournalSequence == nil && old.unacknowledgedOutputs == nil)
    }
}

extension JournalReplayTests {
    /// One watch's swing session as journaled frames (journal sequence = index + 1), in arrival
    /// order, half a second apart.
    static func swingFrames(seed: UInt64) -> [InboundFrame] {
        let actions: [SwingScenario.Action] = [.idle(seconds: 1)] + (0..<6).flatMap { _ in [SwingScenario.Action.swing(contact: true), .idle(seconds: 0.7)] }
        return SwingScenario(seed: seed, actions: actions).arrivals.enumerated().map { index, batch in
            let (stream, payload) =
                switch batch {
                case .accelerometer(let batch): ("batched/accelerometer", FrameEncoder.encode(batch))
                case .deviceMotion(let batch): ("batched/device-motion", FrameEncoder.encode(batch))
                }
            var frame = InboundFrame(topic: "wearables/watch-1/\(stream)", payload: payload, receivedAt: 1_700_000_000 + Double(index) / 2)
            frame.journalSequence = UInt64(index + 1)
            return frame
        }
    }

    /// The swing event ids published when the processor restarts from JSON snapshots before frame
    /// `restartAt` and the journal replays frames `replayFrom..<restartAt` (those it kept).
    static func swingIDs(_ frames: [InboundFrame], restartAt: Int, replayFrom: Int) throws -> Set<String> {
        func swings(_ messages: [OutboundMessage]) -> [String] { messages.filter { $0.topic.hasSuffix("/swing") }.compactMap { $0.string("eventId") } }
        var processor = FrameProcessor(configuration: .init(journalIdentity: journal))
        var published = Set(frames[..<restartAt].flatMap { swings(processor.process($0).messages) })
        let device = try #require(DeviceID("watch-1"))
        let stored = try JSONEncoder().encode(try #require(processor.snapshot(of: device)))
        var restarted = FrameProcessor(configuration: .init(journalIdentity: journal))
        restarted.restore(try JSONDecoder().decode(DeviceSnapshot.self, from: stored), of: device)
        for frame in frames[replayFrom...] { published.formUnion(swings(restarted.process(frame).messages)) }
        return published
    }

    @Test("a replayed batched frame is applied again although the snapshot counts it: its samples refill the swing windows, so the swing in progress at the restart is published")
    func batchedFramesRefillSampleWindows() throws {
        let frames = Self.swingFrames(seed: 61)
        var processor = FrameProcessor(configuration: .init(journalIdentity: Self.journal))
        let expected = Set(frames.flatMap { processor.process($0).messages }.filter { $0.topic.hasSuffix("/swing") }.compactMap { $0.string("eventId") })
        #expect(expected.count == 6)
        // The gateway keeps a batched frame's record for `derivation.swing.alignmentWindow` (4 s:
        // 8 frames here) when clustered; the same restarts without it lose a swing now and then.
        var lostWithoutReplay = 0
        for restartAt in 1..<frames.count {
            let kept = try Self.swingIDs(frames, restartAt: restartAt, replayFrom: max(0, restartAt - 8))
            #expect(kept == expected, "restart before frame \(restartAt) of \(frames.count), the last 8 frames replayed")
            lostWithoutReplay += expected.subtracting(try Self.swingIDs(frames, restartAt: restartAt, replayFrom: restartAt)).count
        }
        #expect(lostWithoutReplay > 0, "no restart point lost a swing without the replay: the test shows nothing")
    }
}
