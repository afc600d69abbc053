import ArgumentParser
import Foundation
import TelemetryCore
import TelemetrySimulation

/// `wearable-sim footprint`: resident bytes per device of each deriver's state, measured in
/// process (Benchmarks/relay-ratio's memory figures; docs/performance.md).
struct FootprintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "footprint",
        abstract: "Measure the resident memory per device of each deriver's state (and of a whole frame processor).",
        discussion: """
            For each deriver it builds --devices instances, feeds each one the simulator's frames of a device that \
            deriver serves for --seconds, and reports the growth of this process's resident set (VmRSS) divided by \
            --devices. The frames are generated and decoded one second at a time, and one second is fed to a \
            throw-away set first, so the transient memory of a second's frames is already resident before the \
            measurement starts. Linux only (reads /proc/self/statm).
            """)

    @Option(help: "Devices per measurement.")
    var devices: Int = 1000

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
                streams: prime.union(["batched/accelerometer", "batched/device-motion"]), make: { Processor() }, shared: true),
        ]
        print("resident bytes per device, \(devices) devices, \(seconds) s of frames each")
        for subject in subjects {
            let perDevice = measure(subject)
            print(String(format: "%-90@ %8.1f KB", subject.name as NSString, perDevice / 1024))
        }
    }

    private func measure(_ subject: Subject) -> Double {
        let fleet = (0..<devices).map { index in
            var device = subject.fleet(index + 1)
            device.enabledStreams = subject.streams
            return device
        }
        let positions = Dictionary(uniqueKeysWithValues: fleet.enumerated().map { ($1.id, $0) })
        var generator = TrafficGenerator(seed: 3, devices: fleet, startDate: 1_700_000_000)
        var warmup = subject.make()
        var states: [any FootprintState] = []
        var before = 0
        for second in 0...seconds {
            let frames = generator.advance(to: Double(second) + 0.5)
            let decoded = frames.compactMap { frame -> (String, DecodedFrame, SimulatedFrame)? in
                guard let stream = InboundStream(rawValue: frame.stream),
                    case .success(let model) = FrameDecoder.decodeJSON(frame.payload, stream: stream)
                else { return nil }
                return (frame.deviceId, model, frame)
            }
            if second == 0 {
                // A throw-away state takes one second of every device's frames: the transient
                // memory of a second is resident before `before` is read.
                for (device, model, frame) in decoded { warmup.receive(model, device: device, frame: frame) }
                warmup = subject.make()
                before = residentBytes()
                states = (0..<(subject.shared ? 1 : devices)).map { _ in subject.make() }
            }
            for (device, model, frame) in decoded {
                let index = subject.shared ? 0 : positions[device] ?? 0
                states[index].receive(model, device: device, frame: frame)
            }
        }
        let after = residentBytes()
        withExtendedLifetime(states) {}
        return Double(after - before) / Double(devices)
    }

    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}

/// A deriver (or a whole processor) as the footprint measurement feeds it.
private protocol FootprintState {
    mutating func receive(_ frame: DecodedFrame, device: String, frame raw: SimulatedFrame)
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

    mutating func receive(_ frame: DecodedFrame, device: String, frame raw: SimulatedFrame) {
        guard let id = DeviceID(device) else { return }
        _ = deriver.receive(frame, context: DerivationContext(device: id, receivedAt: raw.time + 1_700_000_000, maximumDepth: 6))
    }
}

private struct Processor: FootprintState {
    var processor = FrameProcessor(
        configuration: .init(accessPolicy: AccessPolicy(registry: .unrestricted, capabilities: .empty)))

    mutating func receive(_ frame: DecodedFrame, device: String, frame raw: SimulatedFrame) {
        _ = processor.process(
            InboundFrame(topic: raw.topic(), payload: raw.payload, contentType: "application/json", retained: raw.retain, receivedAt: raw.time + 1_700_000_000))
    }
}
