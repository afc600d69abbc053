import MQTTTransport
import TelemetryCore
import Testing
import WearableGatewayTesting

@Suite("Fault injection schedules")
struct FaultPlanTests {
    /// `count` numbered accelerometer frames per device, 0.1 s apart, after a stored hello each.
    static func frames(devices: [String] = ["w-1", "w-2"], count: Int = 50) -> [CapturedFrame] {
        var frames = devices.map {
            CapturedFrame(time: 0, topic: "wearables/\($0)/hello", qos: .atLeastOnce, retain: true, stored: true, payload: Array("{}".utf8))
        }
        for index in 1...count {
            for device in devices {
                let batch = AccelerometerBatch(
                    samples: [AccelerometerSample(timestamp: Double(index), acceleration: Vector3(x: 0, y: 0, z: 1))], sequence: UInt64(index))
                frames.append(
                    CapturedFrame(
                        time: Double(index) / 10, topic: "wearables/\(device)/batched/accelerometer", qos: .atLeastOnce, retain: false, stored: false,
                        payload: FrameEncoder.encode(batch), properties: MQTTProperties(contentType: "application/json")))
            }
        }
        return frames
    }

    @Test("no faults: stored frames first, then every live frame at its time")
    func identity() {
        let frames = Self.frames()
        let schedule = FaultPlan.none.schedule(frames)
        #expect(schedule.frames == frames)
        #expect(schedule.entries.map(\.time) == frames.filter { !$0.stored }.map(\.time))
        #expect(schedule.report.published == frames.count && schedule.report.stored == 2)
        #expect(schedule.expectedSequenceAnomalies() == SequenceCounters.counting(frames: 100))
    }

    @Test("the same seed gives the same faults; another seed others")
    func seeded() {
        let plan = FaultPlan(seed: 9, drop: 0.1, duplicate: 0.1, reorder: 0.1, delay: 50)
        let frames = Self.frames()
        #expect(plan.schedule(frames) == plan.schedule(frames))
        var other = plan
        other.seed = 10
        #expect(other.schedule(frames) != plan.schedule(frames))
    }

    @Test("drop: left-out frames are the gaps a gateway counts; stored frames are never dropped")
    func drop() {
        let schedule = FaultPlan(seed: 1, drop: 1).schedule(Self.frames())
        #expect(schedule.frames.allSatisfy(\.stored) && schedule.report.dropped == 100)
        let some = FaultPlan(seed: 2, drop: 0.2).schedule(Self.frames())
        let expected = some.expectedSequenceAnomalies()
        #expect(some.report.dropped > 0)
        // Every dropped frame but those after the last delivered one of its device is missing.
        #expect(expected.missing <= UInt64(some.report.dropped) && expected.missing + 4 >= UInt64(some.report.dropped))
        #expect(expected.duplicates == 0 && expected.reordered == 0)
    }

    @Test("duplicate: each copy follows its original and is one duplicate")
    func duplicate() {
        let schedule = FaultPlan(seed: 3, duplicate: 0.3).schedule(Self.frames())
        for (index, entry) in schedule.entries.enumerated() where entry.isCopy {
            #expect(schedule.entries[index - 1].frame == entry.frame && !schedule.entries[index - 1].isCopy)
        }
        #expect(schedule.report.duplicated == schedule.entries.filter(\.isCopy).count && schedule.report.duplicated > 0)
        #expect(schedule.expectedSequenceAnomalies().duplicates == UInt64(schedule.report.duplicated))
    }

    @Test("reorder: a swap of neighbours is one gap and one late frame")
    func reorder() {
        let schedule = FaultPlan(seed: 4, reorder: 0.2).schedule(Self.frames())
        let expected = schedule.expectedSequenceAnomalies()
        #expect(schedule.report.reordered > 0)
        #expect(expected.reordered == UInt64(schedule.report.reordered) && expected.missing == UInt64(schedule.report.reordered))
        #expect(Set(schedule.frames.map(\.payload)) == Set(Self.frames().map(\.payload)), "nothing lost or added")
    }

    @Test("cut-at: nothing recorded after S seconds is sent")
    func cut() {
        let schedule = FaultPlan(cutAt: 2).schedule(Self.frames())
        #expect(schedule.entries.allSatisfy { $0.frame.time <= 2 } && schedule.entries.count == 40 && schedule.report.cut == 60)
    }

    @Test("delay: sending order follows the delayed times, within MS of the recorded ones")
    func delay() {
        let schedule = FaultPlan(seed: 5, delay: 300).schedule(Self.frames())
        #expect(zip(schedule.entries, schedule.entries.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(schedule.entries.allSatisfy { $0.time >= $0.frame.time && $0.time <= $0.frame.time + 0.3 })
        #expect(schedule.expectedSequenceAnomalies().reordered > 0, "300 ms of jitter on frames 100 ms apart reorders some")
    }
}

extension SequenceCounters {
    /// Counters after `frames` numbered frames without anomalies.
    static func counting(frames: UInt64) -> SequenceCounters {
        var counters = SequenceCounters()
        counters.frames = frames
        return counters
    }
}
