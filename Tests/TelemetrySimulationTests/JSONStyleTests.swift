import TelemetryCore
import TelemetrySimulation
import Testing

/// The simulator's `--json-style` corpora: precise frames carry full-precision doubles that the
/// gateway's decoder reads back bit for bit, and reordered frames decode to the same models.
@Suite("JSON styles: precise and reordered frames")
struct JSONStyleTests {
    /// Two seconds of every high-rate stream from a watch, an Ultra (recorder) and headphones.
    static let tidyFrames: [SimulatedFrame] = {
        let devices: [SimulatedDevice] = [
            .appleWatchSeries9(id: "w1", activity: .tennis), .appleWatchUltra2(id: "u1"), .airPodsPro2(id: "b1"),
        ]
        var generator = TrafficGenerator(seed: 3, devices: devices, startDate: 1_700_000_000)
        return generator.advance(to: 2.5).filter { InboundStream(rawValue: $0.stream)?.isHighRate == true }
    }()

    static func decode(_ frame: SimulatedFrame) -> DecodedFrame? {
        guard let stream = InboundStream(rawValue: frame.stream), case .success(let model) = FrameDecoder.decodeJSON(frame.payload, stream: stream)
        else { return nil }
        return model
    }

    /// The significant digits of the longest number in `json`.
    static func longestMantissa(_ json: [UInt8]) -> Int {
        var longest = 0
        var digits = 0
        var leading = true
        for byte in json {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                if byte != UInt8(ascii: "0") || !leading { digits += 1; leading = false }
            } else if byte != UInt8(ascii: ".") && byte != UInt8(ascii: "-") {
                longest = max(longest, digits)
                digits = 0
                leading = true
            }
        }
        return longest
    }

    @Test("precise frames decode bit-exactly: writing the decoded models again gives the same bytes")
    func preciseRoundTrip() throws {
        #expect(Set(Self.tidyFrames.map(\.stream)).count == 5)
        for tidy in Self.tidyFrames {
            let precise = tidy.styled(.precise)
            let model = try #require(Self.decode(precise), "\(tidy.stream)")
            // The shortest round-trip text names one double: equal bytes mean equal bits.
            let again: [UInt8]
            switch model {
            case .batchedAccelerometer(let batch): again = FrameEncoder.encode(batch)
            case .batchedDeviceMotion(let batch), .motion(let batch), .headphoneMotion(let batch): again = FrameEncoder.encode(batch)
            case .recorderAccelerometer(let chunk): again = FrameEncoder.encode(chunk)
            default: again = []
            }
            #expect(again == precise.payload, "\(tidy.stream)")
            #expect(Self.longestMantissa(precise.payload) >= 16, "\(tidy.stream): full-precision doubles")
            #expect(precise.payload.count > tidy.payload.count * 11 / 10, "\(tidy.stream): \(precise.payload.count) against \(tidy.payload.count) bytes")
            // Detail below the resolution only: same sample count, values within 10⁻⁶ (headings 10⁻³).
            if case .batchedAccelerometer(let batch) = model, case .batchedAccelerometer(let original)? = Self.decode(tidy) {
                #expect(batch.samples.count == original.samples.count)
                for (sample, reference) in zip(batch.samples, original.samples) {
                    #expect(abs(sample.timestamp - reference.timestamp) < 1e-6 && abs(sample.acceleration.x - reference.acceleration.x) < 1e-6)
                }
            }
        }
    }

    @Test("random full-precision doubles written by FrameEncoder decode to the same bits")
    func randomDoublesBitExact() throws {
        var random = SplitMix64(seed: 26)
        func value() -> Double {
            // Binary exponents from -30 to 19, every mantissa bit random, either sign.
            let exponent = Int(random.next() % 50) - 30
            let significand = 1 + Double(random.next() >> 12) * 0x1p-52
            return Double(sign: random.next() & 1 == 0 ? .plus : .minus, exponent: exponent, significand: significand)
        }
        let accelerometer = AccelerometerBatch(
            samples: (0..<800).map { index in
                AccelerometerSample(timestamp: 734_646.419 + Double(index) / 800 + value() * 1e-7, acceleration: Vector3(x: value(), y: value(), z: value()))
            }, sequence: 1)
        let motion = DeviceMotionBatch(
            samples: (0..<200).map { index in
                DeviceMotion(
                    timestamp: 734_646.419 + Double(index) / 200, attitude: Quaternion(x: value(), y: value(), z: value(), w: value()),
                    rotationRate: Vector3(x: value(), y: value(), z: value()), gravity: Vector3(x: value(), y: value(), z: value()),
                    userAcceleration: Vector3(x: value(), y: value(), z: value()),
                    magneticField: MagneticField(field: Vector3(x: value(), y: value(), z: value()), accuracy: .high), heading: abs(value()))
            }, sequence: 2)
        let accelerometerJSON = FrameEncoder.encode(accelerometer)
        let motionJSON = FrameEncoder.encode(motion)
        guard case .success(.batchedAccelerometer(let decodedAccelerometer)) = FrameDecoder.decodeJSON(accelerometerJSON, stream: .batchedAccelerometer),
            case .success(.batchedDeviceMotion(let decodedMotion)) = FrameDecoder.decodeJSON(motionJSON, stream: .batchedDeviceMotion)
        else {
            Issue.record("the batches did not decode")
            return
        }
        let bits = { (samples: [AccelerometerSample]) in samples.flatMap { [$0.timestamp, $0.acceleration.x, $0.acceleration.y, $0.acceleration.z].map(\.bitPattern) } }
        #expect(bits(decodedAccelerometer.samples) == bits(accelerometer.samples))
        #expect(decodedMotion == motion)
        for (decoded, original) in zip(decodedMotion.samples, motion.samples) {
            let numbers = { (m: DeviceMotion) in
                [m.timestamp, m.attitude.x, m.attitude.y, m.attitude.z, m.attitude.w, m.rotationRate.x, m.gravity.y, m.userAcceleration.z, m.heading ?? 0]
                    .map(\.bitPattern)
            }
            #expect(numbers(decoded) == numbers(original))
        }
    }

    @Test("reordered frames decode to the same models as precise ones, and differ from them in layout")
    func reorderedSameModels() throws {
        for tidy in Self.tidyFrames {
            let precise = tidy.styled(.precise)
            let reordered = tidy.styled(.reordered)
            #expect(reordered.payload != precise.payload)
            let text = String(decoding: reordered.payload, as: UTF8.self)
            #expect(text.hasPrefix(#"{"samples": [{"#), "\(tidy.stream): \(text.prefix(60))")
            #expect(text.contains(#"{"z": "#) && !text.contains(#"{"x":"#), "\(tidy.stream): members reversed, spaced")
            let model = try #require(Self.decode(reordered), "\(tidy.stream)")
            #expect(model == Self.decode(precise), "\(tidy.stream)")
        }
    }

    @Test("tidy leaves frames as they are, and styles are repeatable")
    func tidyAndRepeatable() {
        for tidy in Self.tidyFrames.prefix(6) {
            #expect(tidy.styled(.tidy) == tidy)
            #expect(tidy.styled(.reordered) == tidy.styled(.reordered))
        }
    }
}
