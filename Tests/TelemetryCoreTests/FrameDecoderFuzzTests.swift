import Foundation
import Testing
import TelemetryCore
import TelemetrySimulation

/// Throws 100,000 random and mutated payloads at every stream's decoder (and the validator): none
/// may crash, and each must yield a model of its stream or a problem with a detail.
@Suite struct FrameDecoderFuzzTests {
    /// Valid payloads to mutate: the golden fixtures plus random models of every stream.
    private static func corpus() throws -> [(InboundStream, [UInt8])] {
        var corpus = try InboundStream.allCases.map { ($0, try Fixture.json($0)) }
        var random = RandomFrames(seed: 77)
        for _ in 0..<8 {
            for stream in InboundStream.allCases { corpus.append((stream, random.frame(stream).contractJSON)) }
        }
        return corpus
    }

    /// Text that often breaks parsers.
    private static let garbage: [String] = [
        "1e400", "-1e400", "1e-400", "123456789012345678901234567890", "18446744073709551616", "-9223372036854775809",
        "NaN", "Infinity", "-0", "0x10", "01", "1.", ".5", "true", "null", "\"\\u0000\"", "\"\\ud800\"", "\"\u{7F}\"", "{}", "[]",
        "{\"samples\":", ",", ":", "\"", "\\", "]", "}", "\u{0}", "\"é\"", "🙂",
    ]

    /// One mutation of `payload`, chosen by `random`.
    private static func mutate(_ payload: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = payload
        let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
        switch random.next() % 11 {
        case 0:  // flip a bit
            if !bytes.isEmpty { bytes[position] ^= UInt8(1 << (random.next() % 8)) }
        case 1:  // truncate
            bytes = Array(bytes.prefix(position))
        case 2:  // insert garbage
            bytes.insert(contentsOf: Array(garbage[Int(random.next() % UInt64(garbage.count))].utf8), at: position)
        case 3:  // replace a byte with a structural character
            let structural = Array("{}[],:\"0-.e".utf8)
            if !bytes.isEmpty { bytes[position] = structural[Int(random.next() % UInt64(structural.count))] }
        case 4:  // deep nesting inside a member
            let depth = Int(random.next() % 3_000)
            bytes = Array("{\"samples\":".utf8) + Array(repeating: UInt8(ascii: "["), count: depth)
                + Array(repeating: UInt8(ascii: "]"), count: random.next() % 2 == 0 ? depth : depth / 2) + Array("}".utf8)
        case 5:  // replace every number with a huge one
            bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "1", with: "1e999").utf8)
        case 6:  // duplicate the members
            if let close = bytes.lastIndex(of: UInt8(ascii: "}")), bytes.first == UInt8(ascii: "{") {
                bytes = Array(bytes[..<close]) + [UInt8(ascii: ",")] + Array(bytes[1...])
            }
        case 7:  // empty
            bytes = []
        case 8:  // random bytes
            bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case 9:  // swap a member's value for another type
            bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: ":", with: ":\"x\",\"_\":").utf8)
        default:  // delete a byte range
            let end = min(bytes.count, position + Int(random.next() % 16))
            bytes.removeSubrange(position..<end)
        }
        return bytes
    }

    @Test("100,000 random and mutated payloads: a model or a problem, never a crash")
    func fuzz() throws {
        let corpus = try Self.corpus()
        var random = SplitMix64(seed: 0x5EED)
        var decoded = 0
        var rejected = 0
        for round in 0..<100_000 {
            let (origin, payload) = corpus[Int(random.next() % UInt64(corpus.count))]
            var mutated = payload
            for _ in 0..<(1 + random.next() % 3) { mutated = Self.mutate(mutated, &random) }
            // Mostly the payload's own stream (deep paths), every tenth frame another stream's decoder.
            let stream = round % 10 == 0 ? InboundStream.allCases[round / 10 % InboundStream.allCases.count] : origin
            switch FrameDecoder.decodeJSON(mutated, stream: stream) {
            case .success(let frame):
                decoded += 1
                #expect(frame.stream == stream)
                if let problem = FrameValidator.validate(frame) { #expect(!problem.detail.isEmpty) }
            case .failure(let problem):
                rejected += 1
                #expect(!problem.message.isEmpty)
                #expect(problem.reason != .decoderFailure, "\(problem.detail)")
            }
        }
        #expect(decoded + rejected == 100_000)
        // Both outcomes occur, so the mutations neither all break nor all miss the payloads.
        #expect(decoded > 1_000)
        #expect(rejected > 10_000)
    }
}
