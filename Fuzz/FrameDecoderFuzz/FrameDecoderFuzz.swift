@testable import TelemetryCore

/// The scheme whose inbound topics the inputs are read as.
let scheme = TopicScheme()

/// One fuzz input: the first byte picks the stream (bits 1–6) and the encoding (bit 0: JSON or
/// protobuf); the rest is the payload, decoded as the gateway's workers decode a frame. libFuzzer
/// reports a trap (a Swift runtime error: an index out of range, an overflow), an address
/// sanitizer error or a leak as a crash; the decoder's answer itself, a frame or a problem, is
/// not judged here (the differential tests and the batch harness compare answers).
///
/// The same bytes are also an inbound topic (below the inbound root when bit 7 is set, as nearly
/// every topic the broker hands over is): the one-pass parse of its bytes must give exactly what
/// the level-by-level checks give.
@_cdecl("LLVMFuzzerTestOneInput")
public func frameDecoderFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let streams = InboundStream.allCases
    let stream = streams[Int((data[0] & 0x7F) >> 1) % streams.count]
    let encoding: PayloadEncoding = data[0] & 1 == 0 ? .json : .protobuf
    let payload = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    _ = FrameDecoder.decode(payload, encoding: encoding, stream: stream)
    if encoding == .protobuf { compareWireDecoders(payload, stream: stream) }

    let text = String(decoding: payload, as: UTF8.self)
    let topic = data[0] & 0x80 != 0 ? scheme.inboundRoot + "/" + text : text
    let parsed = scheme.parseInbound(topic)
    let checked = scheme.checkInbound(topic)
    if parsed != checked { fatalError("topic \(topic.debugDescription): parsed \(parsed), checked \(checked)") }
    return 0
}

/// The hand-written wire decoders of the batches against SwiftProtobuf's generated decoding of
/// the same bytes: what SwiftProtobuf refuses, the wire decoder refuses as the wrong type; what
/// it reads, the wire decoder reads to the same numbers, or refuses for the model's own checks.
func compareWireDecoders(_ payload: [UInt8], stream: InboundStream) {
    func fail(_ what: String) -> Never { fatalError("\(stream.rawValue), \(payload.count) bytes: \(what)") }
    /// The batch and the message when both decoders read the bytes; nil when both refuse them
    /// as they should.
    func bothRead<Batch, Message>(_ decoded: Result<Batch, PayloadProblem>, _ reference: Message?) -> (batch: Batch, message: Message)? {
        switch (decoded, reference) {
        case (.success, nil): fail("the wire decoder read what SwiftProtobuf refused")
        case (.failure(let problem), nil): if problem.reason != .wrongType { fail("refused as \(problem.reason), not the wrong type") }
        case (.failure(let problem), _?): if problem.reason == .wrongType { fail("refused what SwiftProtobuf read: \(problem)") }
        case (.success(let batch), let reference?): return (batch, reference)
        }
        return nil
    }
    switch stream {
    case .batchedAccelerometer:
        let reference = ProtobufFrameDecoder.generated(Wearable_V1_AccelerometerBatch.self, payload)
        guard case let (batch, message)? = bothRead(ProtobufFrameDecoder.decodeAccelerometerBatch(payload), reference) else { return }
        guard batch.sequence == (message.hasSequence ? message.sequence : nil),
            batch.samples.map(\.timestamp.bitPattern) == message.timestamp.map(\.bitPattern),
            batch.samples.map({ Float($0.acceleration.x).bitPattern }) == message.x.map(\.bitPattern),
            batch.samples.map({ Float($0.acceleration.y).bitPattern }) == message.y.map(\.bitPattern),
            batch.samples.map({ Float($0.acceleration.z).bitPattern }) == message.z.map(\.bitPattern)
        else { fail("read other values than SwiftProtobuf") }
    case .batchedDeviceMotion:
        let reference = ProtobufFrameDecoder.generated(Wearable_V1_DeviceMotionBatch.self, payload)
        guard case let (batch, message)? = bothRead(ProtobufFrameDecoder.decodeDeviceMotionBatch(payload), reference) else { return }
        guard batch.sequence == (message.hasSequence ? message.sequence : nil), batch.samples.count == message.samples.count else {
            fail("read another sequence or sample count than SwiftProtobuf")
        }
        for (sample, wire) in zip(batch.samples, message.samples) {
            let read = [sample.attitude.x, sample.attitude.y, sample.attitude.z, sample.attitude.w, sample.rotationRate.x, sample.rotationRate.y,
                sample.rotationRate.z, sample.gravity.x, sample.gravity.y, sample.gravity.z, sample.userAcceleration.x,
                sample.userAcceleration.y, sample.userAcceleration.z].map { Float($0).bitPattern }
            let sent = [wire.attitude.x, wire.attitude.y, wire.attitude.z, wire.attitude.w, wire.rotationRate.x, wire.rotationRate.y,
                wire.rotationRate.z, wire.gravity.x, wire.gravity.y, wire.gravity.z, wire.userAcceleration.x, wire.userAcceleration.y,
                wire.userAcceleration.z].map(\.bitPattern)
            guard sample.timestamp.bitPattern == wire.timestamp.bitPattern, read == sent,
                sample.sensorLocation.rawValue == wire.sensorLocation.rawValue, (sample.magneticField != nil) == wire.hasMagneticField
            else { fail("read another sample than SwiftProtobuf") }
        }
    default:
        break
    }
}

/// libFuzzer's driver (compiler-rt's `LLVMFuzzerRunDriver`, linked by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
func fuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// SwiftPM renames an executable target's `main` to `<target>_main` and calls that; libFuzzer's
/// own `main` is therefore never reached, so its driver is started from here.
@_cdecl("FrameDecoderFuzz_main")
public func frameDecoderFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return fuzzerRunDriver(&count, &arguments) { frameDecoderFuzzInput($0, $1) }
}
