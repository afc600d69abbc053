import CSimdjson
import Foundation
import TelemetryCore
import TelemetrySimulation
import Testing

/// The batch decoders' fast path (the one-pass scanner) against the DOM path alone: on every payload (the
/// simulator's frames of every device and stream the decoders serve, in every `JSONStyle`;
/// layouts the fast path declines, malformed input, seeded byte mutations) both give the same status, problem, count,
/// samples (bit for bit) and members.
@Suite("Batch decoder: fast path against the DOM path")
struct BatchDecoderDifferentialTests {
    /// A C batch decoder: payload, length, members, samples, capacity, count, problem.
    typealias Decoder<Raw> = (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<wg_json_members>?, UnsafeMutablePointer<Raw>?, Int,
        UnsafeMutablePointer<Int>?, UnsafeMutablePointer<wg_decode_problem>?
    ) -> wg_decode_status

    /// Everything a call reports, comparable: numbers as bit patterns, strings resolved.
    struct Outcome: Equatable, CustomStringConvertible {
        var status: UInt32
        var field: String
        var message: String
        var count: Int
        var samples: [[UInt64]]
        var members: [[UInt64]]

        var description: String { "status \(status) \(field) \(message), \(count) samples \(samples.prefix(2).map { $0.map { Double(bitPattern: $0) } }), members \(members)" }
    }

    static func scalar(_ value: wg_json_scalar, _ strings: [UInt8]) -> [UInt64] {
        var bits: [UInt64] = [UInt64(value.type.rawValue), UInt64(value.boolean), UInt64(bitPattern: value.int64), value.uint64, value.number.bitPattern]
        if value.type == WG_JSON_STRING { bits += strings[value.string_offset..<(value.string_offset + value.string_length)].map { UInt64($0) } }
        return bits
    }

    /// Runs `decoder` on `payload`; with `readAhead`, the payload is followed in memory by those
    /// bytes and the call is told they are readable (`input_readable`), so it parses in place.
    static func run<Raw>(_ decoder: Decoder<Raw>, _ payload: [UInt8], readAhead: [UInt8]? = nil, sampleBits: (Raw, [UInt8]) -> [UInt64]) -> Outcome {
        let input = payload + (readAhead ?? [])
        let capacity = payload.count / 48 + 1
        var raw = [Raw](unsafeUninitializedCapacity: capacity) { buffer, used in
            // Garbage the fast path might leave must never show: fill with a pattern first.
            memset(buffer.baseAddress!, 0xA5, capacity * MemoryLayout<Raw>.stride)
            used = capacity
        }
        var values = [wg_json_scalar](repeating: wg_json_scalar(), count: 1)
        var strings = [UInt8](repeating: 0, count: payload.count + 1)
        var problem = wg_decode_problem()
        var count = 0
        var used = 0
        let status = "sequence\0".withCString { keys in
            values.withUnsafeMutableBufferPointer { values in
                strings.withUnsafeMutableBufferPointer { strings in
                    raw.withUnsafeMutableBufferPointer { samples in
                        input.withUnsafeBufferPointer { input in
                            var members = wg_json_members(
                                keys: keys, count: 1, values: values.baseAddress, strings: strings.baseAddress, string_capacity: strings.count,
                                string_length: 0, input_readable: readAhead == nil ? 0 : input.count)
                            defer { used = members.string_length }
                            return decoder(input.baseAddress, payload.count, &members, samples.baseAddress, capacity, &count, &problem)
                        }
                    }
                }
            }
        }
        let field = withUnsafeBytes(of: problem.field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let message = withUnsafeBytes(of: problem.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let ok = status == WG_DECODE_OK
        let used_strings = Array(strings.prefix(used))
        return Outcome(
            status: status.rawValue, field: field, message: message, count: count,
            samples: ok ? raw.prefix(count).map { sampleBits($0, used_strings) } : [],
            members: ok ? values.map { scalar($0, used_strings) } : [])
    }

    static func accelerometer(_ payload: [UInt8], readAhead: [UInt8]? = nil) -> (full: Outcome, dom: Outcome, fastPath: Outcome) {
        let bits = { (sample: wg_accelerometer_sample, _: [UInt8]) -> [UInt64] in
            [sample.timestamp, sample.acceleration.x, sample.acceleration.y, sample.acceleration.z].map(\.bitPattern)
        }
        return (
            run(wg_decode_accelerometer_batch, payload, readAhead: readAhead, sampleBits: bits),
            run(wg_decode_accelerometer_batch_dom, payload, readAhead: readAhead, sampleBits: bits),
            run(wg_decode_accelerometer_batch_fast, payload, readAhead: readAhead, sampleBits: bits)
        )
    }

    static func deviceMotion(_ payload: [UInt8], readAhead: [UInt8]? = nil) -> (full: Outcome, dom: Outcome, fastPath: Outcome) {
        let bits = { (s: wg_device_motion_sample, strings: [UInt8]) -> [UInt64] in
            let numbers = [
                s.timestamp, s.attitude.x, s.attitude.y, s.attitude.z, s.attitude.w, s.rotation_rate.x, s.rotation_rate.y, s.rotation_rate.z,
                s.gravity.x, s.gravity.y, s.gravity.z, s.user_acceleration.x, s.user_acceleration.y, s.user_acceleration.z,
            ]
            var result = numbers.map(\.bitPattern) + [UInt64(s.has_magnetic_field)]
            if s.has_magnetic_field != 0 { result += [s.magnetic_field.x, s.magnetic_field.y, s.magnetic_field.z].map(\.bitPattern) }
            return result + scalar(s.magnetic_field_accuracy, strings) + scalar(s.sensor_location, strings) + scalar(s.heading, strings)
        }
        return (
            run(wg_decode_device_motion_batch, payload, readAhead: readAhead, sampleBits: bits),
            run(wg_decode_device_motion_batch_dom, payload, readAhead: readAhead, sampleBits: bits),
            run(wg_decode_device_motion_batch_fast, payload, readAhead: readAhead, sampleBits: bits)
        )
    }

    /// The simulator's frames of the streams the two decoders serve.
    static let simulatorFrames: [(stream: String, payload: [UInt8])] = {
        let devices: [SimulatedDevice] = [
            .appleWatchSeries9(id: "w1", activity: .tennis), .appleWatchSeries9(id: "w2", activity: .baseball), .appleWatchUltra2(id: "u1"),
            .airPodsPro2(id: "b1"),
        ]
        var generator = TrafficGenerator(seed: 11, devices: devices, startDate: 1_700_000_000)
        let streams: Set<String> = ["batched/accelerometer", "batched/device-motion", "motion", "headphone/motion"]
        return generator.advance(to: 3.5).filter { streams.contains($0.stream) }.map { ($0.stream, $0.payload) }
    }()

    /// The same frames as devices with stock JSON encoders send them (`--json-style`).
    static let styledFrames: [(stream: String, style: JSONStyle, payload: [UInt8])] = {
        let devices: [SimulatedDevice] = [.appleWatchSeries9(id: "w1", activity: .tennis), .airPodsPro2(id: "b1")]
        var generator = TrafficGenerator(seed: 12, devices: devices, startDate: 1_700_000_000)
        let streams: Set<String> = ["batched/accelerometer", "batched/device-motion", "motion", "headphone/motion"]
        let frames = generator.advance(to: 2.5).filter { streams.contains($0.stream) }
        return [JSONStyle.precise, .reordered].flatMap { style in frames.map { ($0.stream, style, $0.styled(style).payload) } }
    }()

    /// Reordered batches of both streams: spaced (`", "`, `": "`), the scanner's other cursor.
    static let spacedBatches: [(stream: String, payload: [UInt8])] = {
        let batches = styledFrames.filter { $0.style == .reordered && $0.stream.hasPrefix("batched/") }
        return ["batched/accelerometer", "batched/device-motion"].flatMap { stream in
            batches.filter { $0.stream == stream }.prefix(2).map { ($0.stream, $0.payload) }
        }
    }()

    @Test("precise and reordered frames: the fast path reads every one, with the DOM path's results")
    func styledFramesTakeTheFastPath() {
        #expect(Set(Self.styledFrames.map(\.stream)).count == 4)
        for (stream, style, payload) in Self.styledFrames {
            let (full, dom, fastPath) = stream == "batched/accelerometer" ? Self.accelerometer(payload) : Self.deviceMotion(payload)
            #expect(full == dom, "\(stream), \(style)")
            #expect(fastPath == dom, "\(stream), \(style): the fast path read it")
            #expect(dom.status == WG_DECODE_OK.rawValue && dom.count > 0, "\(stream), \(style): \(dom)")
        }
    }

    @Test("the simulator's frames: the fast path reads every one, with the DOM path's results")
    func simulatorFrames() {
        #expect(Set(Self.simulatorFrames.map(\.stream)).count == 4)
        for (stream, payload) in Self.simulatorFrames {
            let (full, dom, fastPath) = stream == "batched/accelerometer" ? Self.accelerometer(payload) : Self.deviceMotion(payload)
            #expect(full == dom, "\(stream)")
            #expect(fastPath == dom, "\(stream): the fast path read it")
            #expect(dom.status == WG_DECODE_OK.rawValue && dom.count > 0, "\(stream): \(dom)")
        }
    }

    static let accelerometerCases: [String] = [
        #"{"sequence":7,"samples":[{"timestamp":1.5,"acceleration":{"x":0.1,"y":-2,"z":3e-2}}]}"#,
        #"{"samples":[{"timestamp":734646.41925000001,"acceleration":{"x":-0.12345678901234568,"y":1.0000000000000002,"z":-9.8765432109876543e-5}}]}"#,
        #"{"samples":[{"timestamp":12345678901234567890,"acceleration":{"x":0.000000000012345678901234567,"y":1234567890123456789,"z":-1234567890123456789}}]}"#,
        #"{"samples":[],"sequence":8}"#,
        #"{"samples":[]}"#,
        #" { "samples" : [ { "timestamp" : 1 , "acceleration" : { "x" : 1 , "y" : 2 , "z" : 3 } } ] } "#,
        #"{"samples":[{"acceleration":{"x":1,"y":2,"z":3},"timestamp":1}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"z":3,"y":2,"x":1}}]}"#,
        #"{"samples":[{"timestamp":1,"timestamp":2,"acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3},"extra":[1,{"a":null}]}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3,"w":4}}]}"#,
        #"{"samples":[{"timestamp":-0,"acceleration":{"x":-0.0,"y":0,"z":-0e5}}]}"#,
        #"{"samples":[{"timestamp":9007199254740993,"acceleration":{"x":18446744073709551615,"y":18446744073709551616,"z":1e308}}]}"#,
        #"{"samples":[{"timestamp":123456789012345678901234567890,"acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[{"timestamp":1e400,"acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[{"timestamp":"1","acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2}}]}"#,
        #"{"samples":[{"timestamp":1}]}"#,
        #"{"samples":[1]}"#,
        #"{"samples":{}}"#,
        #"{"sequence":1}"#,
        #"{"sequence":1,"sequence":2,"samples":[]}"#,
        #"{"sequence":"7","samples":[]}"#,
        #"{"sequence":null,"samples":[]}"#,
        #"{"sequence":true,"samples":[]}"#,
        #"{"sequence":-3,"samples":[]}"#,
        #"{"sequence":18446744073709551615,"samples":[]}"#,
        #"{"sequence":1.5,"samples":[]}"#,
        #"{"sequence":123456789012345678901234567890,"samples":[]}"#,
        #"{"sequence":123456.789012345678901234567890,"samples":[]}"#,
        #"{"samples":[{"timestamp":123456.789012345678901234567890,"acceleration":{"x":0.1000000000000000055511151231257827,"y":2.2250738585072011e-308,"z":4.9e-324}}]}"#,
        #"{"sequence":-9223372036854775809,"samples":[]}"#,
        #"{"samples":[{"timestamp":-9223372036854775809,"acceleration":{"x":1e19,"y":-1e300,"z":1}}]}"#,
        #"{"sequence":[1],"samples":[]}"#,
        #"{"sequence":{"a":1},"samples":[]}"#,
        #"{"deviceId":"x","samples":[]}"#,
        #"{"samples":[],"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"sampl\u0065s":[]}"#,
        #"{"samples":[]} x"#,
        #"{"samples":[]}{}"#,
        #"{"samples":[]"#,
        #"{"samples":[{"timestamp":1 "acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}},]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}} {"timestamp":2}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}],}"#,
        #"{"samples":[{"timestamp":01,"acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[{"timestamp":1.,"acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":tru,"y":2,"z":3}}]}"#,
        "\t{\n\"samples\"\r:\n[ {\"timestamp\" : 1 ,\"acceleration\":{ \"x\":1,\"y\":2 ,\"z\":3\t} } ] ,\"sequence\" : 5 }\n",
        #"{"samples":[],"sequence":-0}"#,
        #"{"samples":[],"sequence":-0.0}"#,
        #"{"samples":[],"sequence":1e2}"#,
        #"{"samples":[],"sequence":123456789012345678}"#,
        #"{"samples":[],"sequence":1234567890123456789}"#,
        #"{"samples":[],"sequence":-123456789012345678}"#,
        #"{"samples":[],"sequence":nul}"#,
        #"{"samples":[],"sequence":truex}"#,
        #"{"samples":[],"sequence":false}"#,
        #"{"samples":[],"sequence":"a\u0062"}"#,
        #"{"samples":[],"sequence":"é"}"#,
        #"{"samples":[],"sequence":"tab\there"}"#,
        "{\"samples\":[],\"sequence\":\"tab\there\"}",
        #"{"samples":[],"sequence":"plain text"}"#,
        #"{"samples":[ ]}"#,
        #"{ }"#,
        #"{"samples":[{}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{}}]}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}]"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}]}   "#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}]} ,"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}],"sequence":7,}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}] "sequence":7}"#,
        #"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}}]:"sequence":7}"#,
        #"[{"samples":[]}]"#,
        #""samples""#,
        "",
        "\u{FEFF}{\"samples\":[]}",
        "{\"samples\":[],\"s\":\"\u{1}\"}",
        // Spacing: the scanner guesses it from the first colon; every mix must read the same.
        #"{"samples": [{"timestamp": 1, "acceleration": {"x": 1, "y": 2, "z": 3}}], "sequence": 5}"#,
        #"{"samples": [{"timestamp":1,"acceleration":{"x":1,"y":2,"z":3}},{"timestamp":2,"acceleration":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[{"timestamp": 1, "acceleration": {"x": 1, "y": 2, "z": 3}}, {"timestamp": 2, "acceleration": {"x": 1, "y": 2, "z": 3}}]}"#,
        "{\"samples\":  [{\"timestamp\":  1,  \"acceleration\": {\"x\":\n1, \"y\": 2 , \"z\":\t3}} ,\n{\"timestamp\": 2, \"acceleration\": {\"x\": 1, \"y\": 2, \"z\": 3}}]}",
        #"{"sequence": 5, "samples": [{"acceleration": {"z": 3, "y": 2, "x": 1}, "timestamp": 1}]}"#,
        #"{"samples": [], "sequence": 7, }"#,
        #"{"samples": [{"timestamp": 1, "acceleration": {"x": 1, "y": 2, "z": 3}}], "#,
        #"{"samples": [{"timestamp": "#,
        #"{"samples": [{"timestamp": 1, "acceleration": {"x": 1, "y": 2, "z": 3}}, ]}"#,
        #"{"samples": [{"timestamp": 1, "acceleration": {"x": 1, "y": 2, "z": 3}}] } "#,
        // Integers around the fast path's 18 digits (found by the decoder fuzzer: a longer run of
        // digits overflowed a signed accumulator before it was declined; docs/testing.md, "Fuzzing").
        #"{"sequence":999999999999999999,"samples":[]}"#,
        #"{"sequence":-999999999999999999,"samples":[]}"#,
        #"{"sequence":9223372036854775807,"samples":[]}"#,
        #"{"sequence":9223372036854775808,"samples":[]}"#,
        #"{"sequence":-9223372036854775808,"samples":[]}"#,
        #"{"sequence":18446744073709551615,"samples":[]}"#,
        #"{"sequence":112345678901234567890,"samples":[]}"#,
        #"{"sequence":1123456789012345678901234567890,"samples":[]}"#,
    ]

    /// Checks that the full decoder gives the DOM path's outcome on every case; returns how many
    /// cases the fast path read.
    static func compare(_ cases: [[UInt8]], _ decode: ([UInt8]) -> (full: Outcome, dom: Outcome, fastPath: Outcome)) -> Int {
        var accepted = 0
        for payload in cases {
            let (full, dom, fastPath) = decode(payload)
            #expect(full == dom, "\(String(decoding: payload, as: UTF8.self))")
            accepted += fastPath.status == WG_DECODE_OK.rawValue ? 1 : 0
        }
        return accepted
    }

    @Test("edge cases and malformed accelerometer batches: identical results")
    func accelerometerEdgeCases() {
        // Besides the texts: invalid UTF-8 in a string, and a NUL byte.
        let bytes = [Array(#"{"samples":[],"s":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8), Array(#"{"samples":[]}"#.utf8) + [0]]
        let accepted = Self.compare(Self.accelerometerCases.map { Array($0.utf8) } + bytes) { Self.accelerometer($0) }
        #expect(accepted >= 6, "canonical layouts, spaces and the sequence's forms take the fast path")
    }

    static let motionSample = #"{"timestamp":2,"attitude":{"x":0,"y":0,"z":0,"w":1},"rotationRate":{"x":1,"y":2,"z":3},"gravity":{"x":0,"y":0,"z":-1},"userAcceleration":{"x":0.5,"y":0,"z":0}"#

    static let deviceMotionCases: [String] = [
        #"{"samples":[\#(motionSample),"sensorLocation":"default"}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"headphoneLeft","heading":12.5}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":{"x":1,"y":2,"z":3,"accuracy":"high"},"heading":-1}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":{"x":1,"y":2,"z":3,"accuracy":2}}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":{"x":1,"y":2,"z":3}}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":null}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":[1]}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","heading":12,"magneticField":{"x":1,"y":2,"z":3,"accuracy":"low"}}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","heading":null}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","heading":"north"}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","heading":1,"heading":2}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":null}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":7}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"de\"fault\u00e9"}]}"#,
        #"{"samples":[\#(motionSample)}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","heading":1.5e1}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","heading":-1}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","heading":true}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":{"accuracy":"high","z":3,"y":2,"x":1}}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":{"x":1,"y":2,"z":3,"accuracy":null}}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":{"x":1,"y":2,"z":3,"accuracy":"hi\"gh"}}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":nulls}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","magneticField":{}}]}"#,
        #"{"samples":[\#(motionSample),"heading":2,"sensorLocation":"headphoneRight"}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default","extra":1}]}"#,
        #"{"samples":[{"timestamp":2,"attitude":{"x":0,"y":0,"z":0},"rotationRate":{"x":1,"y":2,"z":3},"gravity":{"x":0,"y":0,"z":-1},"userAcceleration":{"x":0,"y":0,"z":0},"sensorLocation":"default"}]}"#,
        #"{"samples":[{"timestamp":2,"rotationRate":{"x":1,"y":2,"z":3},"attitude":{"x":0,"y":0,"z":0,"w":1},"gravity":{"x":0,"y":0,"z":-1},"userAcceleration":{"x":0,"y":0,"z":0},"sensorLocation":"default"}]}"#,
        #"{"samples":[\#(motionSample),"sensorLocation":"default"},\#(motionSample),"sensorLocation":"default","heading":3}],"sequence":4}"#,
        #"{"samples": [{"timestamp": 2, "attitude": {"x": 0, "y": 0, "z": 0, "w": 1}, "rotationRate": {"x": 1, "y": 2, "z": 3}, "gravity": {"x": 0, "y": 0, "z": -1}, "userAcceleration": {"x": 0.5, "y": 0, "z": 0}, "sensorLocation": "default", "magneticField": {"x": 1, "y": 2, "z": 3, "accuracy": "high"}, "heading": 12.5}], "sequence": 4}"#,
        #"{"samples": [\#(motionSample), "sensorLocation": "default", "magneticField": null, "heading": null}]}"#,
        #"{"samples": [\#(motionSample), "sensorLocation": "default", "heading": nul}]}"#,
    ]

    @Test("edge cases and malformed device-motion batches: identical results")
    func deviceMotionEdgeCases() {
        let accepted = Self.compare(Self.deviceMotionCases.map { Array($0.utf8) }) { Self.deviceMotion($0) }
        #expect(accepted >= 6, "every encoder layout takes the fast path")
    }

    /// Numbers at the edges of what the fast path's reader takes: signs of zero, 2⁵³ + 1, the
    /// subnormal and overflow boundaries, 19 and 20 significant digits, exponents in both cases.
    static let edgeNumbers = [
        "0", "-0", "0.0", "-0.0", "0e5", "1e0", "1E+2", "1e-2", "1.5E-0003", "9007199254740993", "9007199254740993.0",
        "0.30000000000000004", "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9e-324", "2.4703282292062327e-324",
        "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623159e308", "1e308", "1e309", "1e-400",
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "0.00000000000000000000000000000000000001",
        "123456789.123456789", "1234567890123456789", "12345678901234567890", "0.1234567890123456789", "0.12345678901234567891",
        "1.0000000000000000000", "12345678.12345678", "87654321.87654321e-8", "0.000123456789012345678", "-40212.999999267755",
        "734646.41925000001", "1e00001", "1e-0000000000000000000000000002", "1e99999999999999999999", "1e+", "1.e5", ".5", "-.5", "+1", "01", "-", "1ee2", "0x10", "1.5.5",
    ]

    /// Seeded JSON numbers of every form: shortest round-trip doubles from 10⁻⁴⁰ to 10⁴⁰ (as a
    /// device's encoder writes them), and digit strings of 1-22 significant digits with leading
    /// zeros, a point anywhere and optional exponents, as another encoder might.
    static func seededNumbers(_ count: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        func digits(_ count: Int, first: Bool) -> String {
            String((0..<count).map { index in Character(String(index == 0 && first ? 1 + generator.next() % 9 : generator.next() % 10)) })
        }
        return (0..<count).map { _ in
            let sign = generator.next() % 3 == 0 ? "-" : ""
            if generator.next() % 2 == 0 {
                let value = Double(sign: .plus, exponent: Int(generator.next() % 261) - 130, significand: 1 + generator.nextUnitInterval())
                return sign + "\(value)"
            }
            let significant = 1 + Int(generator.next() % 22)
            let point = Int(generator.next() % UInt64(significant + 1))
            var text = point == 0 ? "0." + String(repeating: "0", count: Int(generator.next() % 6)) + digits(significant, first: false)
                : digits(point, first: true) + (point == significant ? "" : "." + digits(significant - point, first: false))
            if generator.next() % 4 == 0 {
                text += (generator.next() % 2 == 0 ? "e" : "E") + ["", "+", "-"][Int(generator.next() % 3)] + String(generator.next() % 330)
            }
            return sign + text
        }
    }

    @Test("numbers of every length and form: the fast path reads them exactly, or leaves them to the DOM path")
    func numberForms() throws {
        let texts = Self.edgeNumbers + Self.seededNumbers(3_000, seed: 21)
        var read = 0
        var readable = 0
        for index in texts.indices {
            let (x, y, z) = (texts[index], texts[(index + 1) % texts.count], texts[(index + 2) % texts.count])
            let payload = Array(#"{"samples":[{"timestamp":\#(x),"acceleration":{"x":\#(y),"y":\#(z),"z":\#(x)}}]}"#.utf8)
            let (full, dom, fastPath) = Self.accelerometer(payload)
            #expect(full == dom, "\(x) \(y) \(z)")
            // What Swift's own (correctly rounding) parser makes of the text, for every value the fast path read.
            let expected = [x, y, z, x].compactMap { Double($0)?.bitPattern }
            let plain = dom.status == WG_DECODE_OK.rawValue && [x, y, z].allSatisfy { text in
                text.filter(\.isNumber).drop { $0 == "0" }.count <= 17 && Double(text).map { $0 != 0 && abs($0) < 9.2e18 && abs($0) > 1e-300 } == true
            }
            readable += plain ? 1 : 0
            #expect(!plain || fastPath.status == WG_DECODE_OK.rawValue, "plain numbers take the fast path: \(x) \(y) \(z)")
            if fastPath.status == WG_DECODE_OK.rawValue {
                read += plain ? 1 : 0
                #expect(fastPath == dom, "\(x) \(y) \(z)")
                #expect(try #require(fastPath.samples.first) == expected, "\(x) \(y) \(z)")
            }
        }
        #expect(readable > 200 && read == readable, "every sample of plain numbers (up to 17 digits, nonzero, below 2⁶³ in magnitude) takes the fast path: \(read) of \(readable)")
    }

    @Test("seeded mutations of the simulator's frames and the edge cases: identical results")
    func mutations() {
        var generator = SplitMix64(seed: 5)
        let bases = (Self.simulatorFrames.prefix(6) + Self.spacedBatches).map { (accelerometer: $0.stream == "batched/accelerometer", payload: $0.payload) }
            + Self.accelerometerCases.map { (accelerometer: true, payload: Array($0.utf8)) }
            + Self.deviceMotionCases.map { (accelerometer: false, payload: Array($0.utf8)) }
        let alphabet = Array(#"{}[],:"\ -+.0123456789eEtrufalsn"#.utf8)
        var declined = 0
        for (accelerometer, base) in bases where !base.isEmpty {
            for _ in 0..<150 {
                var payload = base
                let position = Int(generator.next() % UInt64(payload.count))
                switch generator.next() % 4 {
                case 0: payload[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: payload.remove(at: position)
                case 2: payload.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                default: payload = Array(payload.prefix(position))
                }
                let (full, dom, _) = accelerometer ? Self.accelerometer(payload) : Self.deviceMotion(payload)
                #expect(full == dom, "\(String(decoding: payload.prefix(400), as: UTF8.self))")
                if dom.status != WG_DECODE_OK.rawValue { declined += 1 }
            }
        }
        #expect(declined > 100, "the mutations reach the error paths")
    }

    @Test("parsed in place (the transport's read-ahead after the payload): the copied input's results, whatever follows")
    func inPlaceInput() {
        // What follows the payload would change numbers, keys or the document if it were read as
        // part of it: more digits, another member, another sample.
        let followers = [
            [UInt8](repeating: UInt8(ascii: "9"), count: Int(WG_JSON_READ_AHEAD)),
            Array(String(repeating: #","x":1}]}"#, count: 8).utf8.prefix(Int(WG_JSON_READ_AHEAD))),
            [UInt8](repeating: 0, count: Int(WG_JSON_READ_AHEAD)),
            // A spaced payload's separator is followed by a space: one must not be taken from here.
            [UInt8](repeating: UInt8(ascii: " "), count: Int(WG_JSON_READ_AHEAD)),
        ]
        var generator = SplitMix64(seed: 9)
        let frames = Self.simulatorFrames.prefix(4).map(\.payload) + Self.styledFrames.prefix(4).map(\.payload) + Self.spacedBatches.map(\.payload)
        let streams = Self.simulatorFrames.prefix(4).map(\.stream) + Self.styledFrames.prefix(4).map(\.stream) + Self.spacedBatches.map(\.stream)
        var cases = Array(zip(streams, frames))
        for (stream, payload) in zip(streams, frames) {
            // Cut anywhere: mid-number, mid-key, between members.
            for _ in 0..<20 { cases.append((stream, Array(payload.prefix(Int(generator.next() % UInt64(payload.count)))))) }
        }
        cases += Self.accelerometerCases.map { ("batched/accelerometer", Array($0.utf8)) }
        cases += Self.deviceMotionCases.map { ("batched/device-motion", Array($0.utf8)) }
        var readInPlace = 0
        for (stream, payload) in cases {
            let decode = stream == "batched/accelerometer" ? Self.accelerometer : Self.deviceMotion
            let copied = decode(payload, nil)
            for follower in followers {
                let inPlace = decode(payload, follower)
                #expect(inPlace.full == copied.full, "\(stream): \(String(decoding: payload.suffix(80), as: UTF8.self))")
                #expect(inPlace.dom == copied.dom, "\(stream): \(String(decoding: payload.suffix(80), as: UTF8.self))")
                #expect(inPlace.fastPath == copied.fastPath, "\(stream): \(String(decoding: payload.suffix(80), as: UTF8.self))")
                if inPlace.full.status == WG_DECODE_OK.rawValue { readInPlace += 1 }
            }
        }
        #expect(readInPlace > 4 * 8, "the whole frames decode in place")
    }
}
