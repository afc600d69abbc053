import ArgumentParser
import Foundation
import TelemetryCore
import TelemetrySimulation

/// `wearable-sim generate`: writes pre-generated watch traffic to files, for load generators
/// that must not spend their CPU on generating or encoding (Benchmarks/relay-ratio).
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write --seconds of swing-watch traffic for --watches template watches to a frame file.",
        discussion: """
            The fleet is Apple Watch Series 9 wearers alternating tennis and baseball (every watch swings). Each \
            watch publishes hello, status, authorization and a running workout (the "prime" frames) and then one \
            800-sample batched/accelerometer and one 200-sample batched/device-motion batch a second. A load \
            generator may reuse template i for many devices under other ids: the payloads name no device.

            <output>/frames.bin, little-endian: "WGF1", u32 template count, u32 frame count, then per frame \
            u32 template, u8 phase (0 prime, 1 stream), u8 qos, u8 retain, u8 reserved, f64 time (simulated s), \
            u16 stream length, u16 content-type length, u32 payload length, stream, content type, payload. \
            <output>/index.tsv: template, stream, sequence, time, first and last sample timestamp of each batch \
            (seconds since boot), for matching derived events to the batch that carried them.
            """)

    @Option(help: "Template watches (distinct motion; a load generator maps device i to template i mod this).")
    var watches: Int = 20

    @Option(help: "Simulated seconds of batched traffic per watch.")
    var seconds: Int = 20

    @Option(help: "Seed.")
    var seed: UInt64 = 1

    @Option(help: EncodingOption.help)
    var encoding: EncodingOption = .json

    @Option(help: JSONStyleOption.help)
    var jsonStyle: JSONStyleOption = .tidy

    @Option(help: "Output directory (created if missing).")
    var output: String

    func run() throws {
        let streams: Set<String> = ["hello", "status", "authorization", "workout", "batched/accelerometer", "batched/device-motion"]
        let devices = (0..<max(1, watches)).map { index in
            var device = SimulatedDevice.appleWatchSeries9(id: "watch-\(index + 1)", activity: index % 2 == 0 ? .tennis : .baseball)
            device.enabledStreams = streams
            return device
        }
        var generator = TrafficGenerator(seed: seed, devices: devices, startDate: Date().timeIntervalSince1970)
        // Batches cover the second before their time; a little past the last one collects it.
        let frames = generator.advance(to: Double(seconds) + 0.5)
        let templateOf = Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($1.id, $0) })
        var blob: [UInt8] = Array("WGF1".utf8)
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { blob.append(contentsOf: $0) } }
        put(UInt32(devices.count))
        put(UInt32(frames.count))
        var index = "template\tstream\tsequence\ttime\tfirst\tlast\n"
        for frame in frames {
            guard let template = templateOf[frame.deviceId] else { continue }
            let isBatch = frame.stream.hasPrefix("batched/")
            let styled = isBatch && encoding == .json ? frame.styled(jsonStyle.style) : frame
            let encoded = isBatch ? styled.encoded(as: encoding.encoding) : frame
            let contentType = Array(encoded.encoding.mediaType.utf8)
            let stream = Array(frame.stream.utf8)
            put(UInt32(template))
            blob.append(isBatch ? 1 : 0)
            blob.append(UInt8(frame.qos.rawValue))
            blob.append(frame.retain ? 1 : 0)
            blob.append(0)
            put(frame.time.bitPattern)
            put(UInt16(stream.count))
            put(UInt16(contentType.count))
            put(UInt32(encoded.payload.count))
            blob += stream
            blob += contentType
            blob += encoded.payload
            if isBatch, let stream = InboundStream(rawValue: frame.stream),
                case .success(let decoded) = FrameDecoder.decodeJSON(styled.payload, stream: stream),
                let range = decoded.batchTimestamps
            {
                index += "\(template)\t\(frame.stream)\t\(decoded.sequence ?? 0)\t\(frame.time)\t\(range.first)\t\(range.last)\n"
            }
        }
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        try Data(blob).write(to: URL(fileURLWithPath: output).appendingPathComponent("frames.bin"))
        try Data(index.utf8).write(to: URL(fileURLWithPath: output).appendingPathComponent("index.tsv"))
        let format = encoding == .json ? "json, \(jsonStyle.rawValue)" : encoding.rawValue
        print("\(frames.count) frames for \(devices.count) watches, \(blob.count / 1_048_576) MiB (\(format)) in \(output)")
    }
}
