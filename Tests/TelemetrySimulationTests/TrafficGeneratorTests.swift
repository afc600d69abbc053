import Testing
import TelemetryCore
import TelemetrySimulation

@Suite("Traffic generator: determinism, schedule, rates")
struct TrafficGeneratorTests {
    private func generate(seed: UInt64, deviceCount: Int = 3, until end: Double, step: Double? = nil) -> [SimulatedFrame] {
        var generator = TrafficGenerator(seed: seed, deviceCount: deviceCount, startDate: 1_700_000_000)
        guard let step else { return generator.advance(to: end) }
        var frames: [SimulatedFrame] = []
        while generator.currentTime + step < end {
            frames += generator.advance(by: step)
        }
        return frames + generator.advance(to: end)
    }

    @Test("the same seed gives byte-identical frames")
    func sameSeedSameBytes() {
        let first = generate(seed: 9, until: 2.5)
        let second = generate(seed: 9, until: 2.5)
        #expect(!first.isEmpty)
        #expect(first == second)
    }

    @Test("a different seed gives different data but the same schedule shape")
    func differentSeedDifferentBytes() {
        let first = generate(seed: 9, until: 2.5)
        let other = generate(seed: 10, until: 2.5)
        #expect(first != other)
        let firstBatches = first.filter { $0.stream == "batched/accelerometer" }.map(\.payload)
        let otherBatches = other.filter { $0.stream == "batched/accelerometer" }.map(\.payload)
        #expect(!firstBatches.isEmpty && firstBatches.count == otherBatches.count)
        #expect(zip(firstBatches, otherBatches).allSatisfy { $0 != $1 })
    }

    @Test("frames do not depend on how time is sliced into steps", arguments: [0.05, 0.33, 1.0])
    func sliceIndependence(step: Double) {
        #expect(generate(seed: 3, until: 2.5, step: step) == generate(seed: 3, until: 2.5))
    }

    @Test("frames come in time order, up to the requested time, and advancing backwards yields nothing")
    func timeOrder() {
        var generator = TrafficGenerator(seed: 1, deviceCount: 5, startDate: 0)
        let frames = generator.advance(to: 2)
        #expect(frames.allSatisfy { $0.time >= 0 && $0.time <= 2 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(generator.currentTime == 2)
        #expect(generator.advance(to: 1).isEmpty)
        #expect(generator.advance(by: 0).isEmpty)
        let next = generator.advance(by: 1)
        #expect(!next.isEmpty && next.allSatisfy { $0.time > 2 && $0.time <= 3 })
    }

    @Test("each device publishes exactly its kind's contract streams")
    func streamsPerDevice() {
        let watchStreams: Set = [
            "hello", "status", "authorization", "workout", "batched/accelerometer", "batched/device-motion", "motion",
            "pedometer/data", "pedometer/event", "altimeter", "recorder/accelerometer",
        ]
        let expected: [String: Set<String>] = [
            "watch-ultra-1": watchStreams.union(["submersion/event", "submersion/measurement", "submersion/temperature"]),
            "watch-s9-1": watchStreams,
            "watch-s9-2": watchStreams,
            "buds-1": ["hello", "status", "authorization", "headphone/connection", "headphone/motion"],
            "phone-1": ["hello", "status", "authorization", "motion", "pedometer/data", "pedometer/event", "altimeter"],
        ]
        #expect(Set(GeneratedTraffic.devices.map(\.id)) == Set(expected.keys))
        for device in GeneratedTraffic.devices {
            let seen = Set(GeneratedTraffic.frames.filter { $0.deviceId == device.id }.map(\.stream))
            #expect(seen == expected[device.id], "\(device.id)")
            #expect(Set(device.streams) == expected[device.id], "\(device.id)")
        }
    }

    /// Expected frame counts over `GeneratedTraffic.duration` (31 s); devices start within the first second.
    static let expectedCounts: [(stream: String, counts: ClosedRange<Int>)] = [
        ("hello", 1...1), ("status", 1...1), ("authorization", 1...1), ("workout", 1...1),
        ("headphone/connection", 1...1),
        ("batched/accelerometer", 30...31), ("batched/device-motion", 30...31), ("recorder/accelerometer", 30...31),
        ("pedometer/data", 30...31), ("altimeter", 30...31),
        ("motion", 150...155), ("headphone/motion", 150...155),
        ("submersion/measurement", 90...93),
        ("submersion/temperature", 57...63),  // 3 Hz from the dive's start at 10 s
        ("submersion/event", 2...2),  // notSubmerged at start, submerged at 10 s
        ("pedometer/event", 2...2),  // pause at 20 s, resume at 26 s
    ]

    @Test("every stream appears at its rate", arguments: expectedCounts)
    func rates(stream: String, counts: ClosedRange<Int>) {
        let publishers = GeneratedTraffic.devices.filter { $0.streams.contains(stream) }
        #expect(!publishers.isEmpty)
        for device in publishers {
            let count = GeneratedTraffic.frames(of: device.id, stream).count
            #expect(counts.contains(count), "\(device.id) \(stream): \(count) frames")
        }
    }

    @Test("samples per frame: 800, 200, 10, 5 and 50")
    func samplesPerFrame() throws {
        let expected = [
            ("batched/accelerometer", 800), ("batched/device-motion", 200), ("motion", 10), ("headphone/motion", 5),
            ("recorder/accelerometer", 50),
        ]
        for (stream, count) in expected {
            let frames = GeneratedTraffic.frames.filter { $0.stream == stream }
            #expect(!frames.isEmpty)
            for frame in frames {
                let samples = try PayloadJSON(frame.payload).children("samples")
                #expect(samples?.count == count, "\(frame.deviceId) \(stream)")
            }
        }
    }

    @Test("sequence is 1, 2, 3, … per device and stream; retained frames carry none")
    func sequences() throws {
        let pairs = Set(GeneratedTraffic.frames.map { "\($0.deviceId) \($0.stream)" })
        for pair in pairs {
            let parts = pair.split(separator: " ").map(String.init)
            let frames = GeneratedTraffic.frames(of: parts[0], parts[1])
            let sequences = try frames.map { try PayloadJSON($0.payload).number("sequence") }
            if parts[1] == "hello" || parts[1] == "status" {
                #expect(sequences.allSatisfy { $0 == nil }, "\(pair)")
            } else {
                #expect(sequences == (1...frames.count).map { Double($0) }, "\(pair)")
            }
        }
    }

    @Test("retain and QoS: hello and status retained; per-sample motion at QoS 0")
    func deliveryOptions() {
        for frame in GeneratedTraffic.frames {
            #expect(frame.retain == (frame.stream == "hello" || frame.stream == "status"))
            #expect(frame.qos == (frame.stream == "motion" || frame.stream == "headphone/motion" ? .atMostOnce : .atLeastOnce))
        }
        let hello = GeneratedTraffic.frames(of: "watch-ultra-1", "hello").first
        #expect(hello?.topic() == "wearables/watch-ultra-1/hello")
        #expect(hello?.topic(root: "test/in") == "test/in/watch-ultra-1/hello")
    }

    @Test("device ids follow the contract's syntax and are unique")
    func deviceIds() {
        let fleet = SimulatedFleet.mixed(count: 40)
        #expect(Set(fleet.map(\.id)).count == 40)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        #expect(fleet.allSatisfy { (1...64).contains($0.id.count) && $0.id.allSatisfy(allowed.contains) })
        #expect(fleet.filter { $0.kind == .watch }.count == 24)
        #expect(SimulatedFleet.mixed(count: 0).isEmpty)
    }

    @Test("enabledStreams restricts a device to the chosen streams")
    func streamSelection() {
        var ultra = SimulatedDevice.appleWatchUltra2(id: "ultra")
        ultra.enabledStreams = ["hello", "submersion/measurement"]
        var generator = TrafficGenerator(seed: 1, devices: [ultra], startDate: 0)
        let frames = generator.advance(to: 5)
        #expect(Set(frames.map(\.stream)) == ["hello", "submersion/measurement"])
        #expect(ultra.streams == ["hello", "submersion/measurement"])
    }
}
