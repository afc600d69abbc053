// Fixed work for instruction counts under callgrind, which, unlike wall clock, repeat on a busy
// or throttled machine. Each workload runs ROUNDS times; run it at two round counts and divide
// the difference by the rounds between them (and the batches per round), so start-up and the
// making of the input drop out. Commands and current figures: ../docs/performance.md ("The
// worker's instructions"); each change's: ../Benchmarks/results/performance-log.md.
//
//   swift build -c release --product InstructionCounts
//   cp .build/release/InstructionCounts /tmp/ic && strip --strip-debug /tmp/ic   # valgrind cannot read its DWARF 5
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null /tmp/ic WORKLOAD ROUNDS
import TelemetryCore
import TelemetrySimulation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let workloads = [
    "validate": "FrameValidator.validate on one 800-sample accelerometer and one 200-sample device-motion batch",
    "protobuf-device-motion": "ProtobufFrameDecoder.decode on the simulator's 3 device-motion batches in protobuf",
    "swing-window": "ImpactDetector.append of one 800-sample accelerometer batch to a swing window",
    "process-fleet": "FrameProcessor.process, with an open registry, on one simulated second of 100 watches (protobuf batches), a new second each round",
    "process-fleet-precise": "process-fleet with the batches as full-precision JSON (corpus b, --json-style precise)",
]
let arguments = CommandLine.arguments
guard arguments.count == 3, workloads[arguments[1]] != nil, let rounds = Int(arguments[2]), rounds >= 0 else {
    print("usage: InstructionCounts WORKLOAD ROUNDS\nworkloads:")
    for (name, description) in workloads.sorted(by: { $0.key < $1.key }) { print("  \(name): \(description)") }
    exit(2)
}

/// Counts results so the work cannot be optimised away, and fails when the input is refused.
var failures = 0
switch arguments[1] {
case "validate":
    let accelerometer = DecodedFrame.batchedAccelerometer(
        AccelerometerBatch(
            samples: (0..<800).map { index in
                AccelerometerSample(
                    timestamp: 100 + Double(index) / 800, acceleration: Vector3(x: 0.123456789 * Double(index % 7), y: -0.98765, z: 0.5))
            }))
    let deviceMotion = DecodedFrame.batchedDeviceMotion(
        DeviceMotionBatch(
            samples: (0..<200).map { index in
                DeviceMotion(
                    timestamp: 100 + Double(index) / 200, attitude: Quaternion(x: 0.36, y: 0.48, z: 0, w: 0.8), rotationRate: Vector3(x: 1, y: 2, z: 3),
                    gravity: Vector3(x: 0, y: 0.6, z: -0.8), userAcceleration: Vector3(x: 0.1, y: 0.2, z: 0.3),
                    magneticField: MagneticField(field: Vector3(x: 20, y: 30, z: 10), accuracy: .high), heading: 120)
            }))
    for _ in 0..<rounds {
        if FrameValidator.validate(accelerometer) != nil { failures += 1 }
        if FrameValidator.validate(deviceMotion) != nil { failures += 1 }
    }
case "protobuf-device-motion":
    var generator = TrafficGenerator(seed: 7, devices: [.appleWatchSeries9(id: "watch-bench-1", activity: .baseball)], startDate: 1_700_000_000)
    let payloads = generator.advance(to: 4).filter { $0.stream == "batched/device-motion" }.map { $0.encoded(as: .protobuf).payload }
    for _ in 0..<rounds {
        for payload in payloads {
            if case .failure = ProtobufFrameDecoder.decode(payload, stream: .batchedDeviceMotion) { failures += 1 }
        }
    }
case "process-fleet", "process-fleet-precise":
    // A worker's view of a fleet: every stream of 100 watches, the batched ones in protobuf, with
    // the access checks on (an open registry and one rule granting every capability, so every
    // frame is admitted and derived, as in the relay-ratio benchmark). The frames are made
    // before the rounds; round r processes simulated second r + 1 (the first is the warm-up).
    let watches = (1...100).map { SimulatedDevice.appleWatchSeries9(id: "watch-\($0)", activity: .baseball) }
    var generator = TrafficGenerator(seed: 7, devices: watches, startDate: 1_700_000_000)
    let protobuf = arguments[1] == "process-fleet"
    func inbound(until second: Double) -> [InboundFrame] {
        generator.advance(to: second).map { frame in
            let encoded = protobuf ? frame.encoded(as: .protobuf) : frame.styled(.precise)
            return InboundFrame(
                topic: encoded.topic(), payload: encoded.payload, contentType: encoded.encoding == .json ? nil : encoded.encoding.mediaType,
                retained: encoded.retain, receivedAt: 1_700_000_000 + encoded.time)
        }
    }
    let warmUp = inbound(until: 2)
    let seconds = (0..<rounds).map { inbound(until: Double($0) + 3) }
    let everything = CapabilityRule(capabilities: Set(Capability.allCases), models: [ModelPattern("Apple Watch*")!],
        platforms: [CapabilityRule.PlatformMinimum(platform: "watchOS", minimum: OSVersion("1")!)])
    var processor = FrameProcessor(
        configuration: FrameProcessor.Configuration(
            accessPolicy: AccessPolicy(registry: .unrestricted, capabilities: CapabilityTable(rules: [everything]))))
    for frame in warmUp { _ = processor.process(frame) }
    for second in seconds {
        for frame in second {
            let result = processor.process(frame)
            if case .accepted = result.outcome {} else {
                if failures == 0 { print("refused: \(frame.topic): \(result.outcome) \(result.messages.first.map { String(decoding: $0.payload, as: UTF8.self) } ?? "")") }
                failures += 1
            }
        }
    }
default:
    let configuration = SwingConfiguration()
    var window = BatchAlignmentWindow(configuration: configuration)
    var detector = ImpactDetector(configuration: configuration)
    let batch = (0..<800).map { index in
        AccelerometerSample(timestamp: Double(index) / 800, acceleration: Vector3(x: 0.1, y: 0.2, z: -1 + 0.3 * Double(index % 20) / 20))
    }
    for round in 0..<rounds {
        // The same batch a second later each round: every sample is new to the window.
        let shifted = batch.map { AccelerometerSample(timestamp: $0.timestamp + Double(round), acceleration: $0.acceleration) }
        _ = detector.append(shifted, to: &window) { _ in }
    }
    if window.staleSamples > 0 { failures += 1 }
}
print("\(arguments[1]) × \(rounds): \(failures) refused")
exit(failures == 0 ? 0 : 1)
