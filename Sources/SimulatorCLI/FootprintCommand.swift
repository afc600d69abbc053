import ArgumentParser
import Foundation
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation

/// `wearable-sim footprint`: resident bytes per device of each deriver's state, measured in
/// process (Benchmarks/relay-ratio's memory figures; docs/performance.md).
struct FootprintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "footprint",
        abstract: "Measure the resident memory per device of each deriver's state (and of a whole frame processor).",
        discussion: """
            For each deriver it generates and decodes --seconds of frames of --devices devices that deriver serves \
            (all held in memory first), then builds one deriver per device, feeds it its device's frames, and reports \
            the growth of this process's resident set (VmRSS) over the feeding divided by --devices (the free heap \
            pages are returned to the kernel first, with glibc's malloc_trim, so the states cannot hide in them). The whole frame \
            processor is measured the same way with the gateway's access checks (open registry, --capabilities). \
            Linux only (reads /proc/self/statm).
            """)

    @Option(help: "Devices per measurement.")
    var devices: Int = 300

    @Option(help: "Capability table of the whole-processor measurement (the gateway's capabilities.file).")
    var capabilities: String = "config/capabilities.yml"

    @Option(help: "Simulated seconds fed to each device (the swing window fills after 4 s).")
    var seconds: Int = 8

    /// One measured subject: a fleet and the state fed from its frames.
    private struct Subject {
        var name: String
        var fleet: (Int) -> SimulatedDevice
        var streams: Set<String>
        var make: () -> any FootprintState
        /// One state for every device (a frame processor), instead of one per device.
        var shared = false
    }

    func run() throws {
        let policy = try AccessPolicyLoader.load(AccessPolicyFiles(registry: nil, capabilities: capabilities)).policy
        let prime: Set<String> = ["hello", "status", "authorization", "workout"]
        let subjects: [Subject] = [
            Subject(
                name: "swing (SwingDeriver; watch, batched streams)", fleet: { .appleWatchSeries9(id: "w\($0)", activity: .tennis) },
                streams: prime.union(["batched/accelerometer", "batched/device-motion"]), make: { Deriver(SwingDeriver(configuration: SwingConfiguration())) }),
            Subject(
                name: "run (RunSegmentDeriver; watch, pedometer + altimeter)", fleet: { .appleWatchSeries9(id: "w\($0)", activity: .walking) },
                streams: prime.union(["pedometer/data", "pedometer/event", "altimeter"]), make: { Deriver(RunSegmentDeriver()) }),
            Subject(
                name: "submersion (SubmersionDeriver; Ultra, submersion/*)", fleet: { .appleWatchUltra2(id: "u\($0)") },
                streams: prime.union(["submersion/event", "submersion/measurement", "submersion/temperature"]),
                make: { Deriver(SubmersionDeriver()) }),
            Subject(
                name: "headphones (HeadphoneDeriver; AirPods, headphone/*)", fleet: { .airPodsPro2(id: "b\($0)") },
                streams: prime.union(["headphone/connection", "headphone/motion"]), make: { Deriver(HeadphoneDeriver()) }),
            Subject(
                name: "whole FrameProcessor per watch (access, sequences, every deriver; batched streams)",
                fleet: { .appleWatchSeries9(id: "w\($0)", activity: .tennis) },
                streams: prime.union(["batched/accelerometer", "batched/device-motion"]), make: { [policy] in Processor(policy: policy) }, shared: true),
        ]
        print("resident bytes per device, \(devices) devices, \(seconds) s of frames each")
        for subject in subjects {
            let (resident, messages) = measure(subject)
            print(String(format: "%8.2f KB  %@ (%d messages derived)", resident / 1024, subject.name, messages))
        }
    }

    private func measure(_ subject: Subject) -> (resident: Double, messages: Int) {
        let fleet = (0..<devices).map { index in
            var device = subject.fleet(index + 1)
            device.enabledStreams = subject.streams
            return device
        }
        let positions = Dictionary(uniqueKeysWithValues: fleet.enumerated().map { ($1.id, $0) })
        var generator = TrafficGenerator(seed: 3, devices: fleet, startDate: 1_700_000_000)
        // Every frame is generated and decoded before the measurement, so only the states grow.
        let frames = generator.advance(to: Double(seconds) + 0.5).compactMap { frame -> (DecodedFrame, SimulatedFrame)? in
            guard let stream = InboundStream(rawValue: frame.stream),
                case .success(let model) = FrameDecoder.decodeJSON(frame.payload, stream: stream)
            else { return nil }
            return (model, frame)
        }
        // Freed pages of the generation go back to the kernel, so the states cannot hide in them.
        Self.trimHeap()
        let before = residentBytes()
        var states = (0..<(subject.shared ? 1 : devices)).map { _ in subject.make() }
        var messages = 0
        for (model, frame) in frames {
            let index = subject.shared ? 0 : positions[frame.deviceId] ?? 0
            messages += states[index].receive(model, device: frame.deviceId, frame: frame)
        }
        let after = residentBytes()
        withExtendedLifetime(states) {}
        return (Double(after - before) / Double(devices), messages)
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (malloc.h is not in Swift's Glibc module):
    /// returns the free pages of the heap to the kernel.
    private static func trimHeap() {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") else { return }
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}

/// A deriver (or a whole processor) as the footprint measurement feeds it.
private protocol FootprintState {
    /// Feeds one frame; returns how many messages it derived.
    mutating func receive(_ frame: DecodedFrame, device: String, frame raw: SimulatedFrame) -> Int
}

/// Any deriver with the common `receive(_:context:)` shape.
private protocol FootprintDeriver {
    mutating func receive(_ frame: DecodedFrame, context: DerivationContext) -> [OutboundMessage]
}

extension SwingDeriver: FootprintDeriver {}
extension RunSegmentDeriver: FootprintDeriver {}
extension SubmersionDeriver: FootprintDeriver {}
extension HeadphoneDeriver: FootprintDeriver {}

private struct Deriver<D: FootprintDeriver>: FootprintState {
    var deriver: D
    init(_ deriver: D) { self.deriver = deriver }

    mutating func receive(_ frame: DecodedFrame, device: String, frame raw: SimulatedFrame) -> Int {
        guard let id = DeviceID(device) else { return 0 }
        return deriver.receive(frame, context: DerivationContext(device: id, receivedAt: raw.time + 1_700_000_000, maximumDepth: 6)).count
    }
}

private struct Processor: FootprintState {
    var processor: FrameProcessor

    init(policy: AccessPolicy) {
        processor = FrameProcessor(configuration: .init(accessPolicy: policy))
    }

    mutating func receive(_ frame: DecodedFrame, device: String, frame raw: SimulatedFrame) -> Int {
        processor.process(
            InboundFrame(topic: raw.topic(), payload: raw.payload, contentType: "application/json", retained: raw.retain, receivedAt: raw.time + 1_700_000_000)
        ).messages.count
    }
}
