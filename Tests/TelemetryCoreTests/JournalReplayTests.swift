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
