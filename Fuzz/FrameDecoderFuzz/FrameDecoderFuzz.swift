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

    let text = String(decoding: payload, as: UTF8.self)
    let topic = data[0] & 0x80 != 0 ? scheme.inboundRoot + "/" + text : text
    let parsed = scheme.parseInbound(topic)
    let checked = scheme.checkInbound(topic)
    if parsed != checked { fatalError("topic \(topic.debugDescription): parsed \(parsed), checked \(checked)") }
    return 0
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
