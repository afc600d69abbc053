/// The one-pass path of ``ProtobufFrameDecoder`` for batches laid out as encoders write them.
///
/// The decoder tries this path first. It reads the layout protobuf encoders produce for the
/// two batched streams straight into the models:
/// - an accelerometer batch whose four columns each come once, packed;
/// - device-motion samples whose fields, nested ones included, each come at most once with
///   their declared wire type (any order; proto3 leaves zeros out).
///
/// It checks that every value is finite and every enum value known as it goes, and returns nil
/// for anything else: a repeated or unpacked column, a field sent twice (which protobuf merges),
/// a known field with another wire type, columns of different lengths, a missing part, a
/// non-finite or unknown value, malformed bytes. The general decoder then reads those bytes from
/// the start and reports what is wrong as before. So this path changes the speed, never the
/// result: `ProtobufWireDecoderDifferentialTests` hold both paths to SwiftProtobuf's decoding,
/// and `ProtobufBatchFastPathTests` to each other.
///
/// Why: at full load, reading protobuf batches was a fifth of the gateway's CPU, most of it in
/// building intermediate columns and wire samples and converting them with a check per value
/// (docs/performance.md, "Protobuf batches in one pass").
enum ProtobufBatchFastPath {
    /// An accelerometer batch whose columns each came once and packed, or nil.
    static func accelerometerBatch(_ bytes: [UInt8]) -> AccelerometerBatch? {
        bytes.withUnsafeBytes { buffer -> AccelerometerBatch? in
            var reader = ProtobufWireReader(buffer, range: 0..<buffer.count)
            var sequence: UInt64?
            var columns: (timestamp: Range<Int>?, x: Range<Int>?, y: Range<Int>?, z: Range<Int>?)
            do throws(ProtobufWireReader.Failure) {
                while let field = try reader.nextField() {
                    switch (field.number, field.wireType) {
                    case (1, _): sequence = try reader.singularVarint(field) ?? sequence
                    case (2, .lengthDelimited) where columns.timestamp == nil: columns.timestamp = try reader.lengthDelimited()
                    case (3, .lengthDelimited) where columns.x == nil: columns.x = try reader.lengthDelimited()
                    case (4, .lengthDelimited) where columns.y == nil: columns.y = try reader.lengthDelimited()
                    case (5, .lengthDelimited) where columns.z == nil: columns.z = try reader.lengthDelimited()
                    case (2...5, _): return nil
                    default: try reader.skip(field.wireType, number: field.number)
                    }
                }
            } catch {
                return nil
            }
            // An absent column is an empty one (an encoder writes nothing for an empty batch).
            let (timestamps, x, y, z) = (columns.timestamp ?? 0..<0, columns.x ?? 0..<0, columns.y ?? 0..<0, columns.z ?? 0..<0)
            guard timestamps.count % 8 == 0 else { return nil }
            guard let base = buffer.baseAddress else { return timestamps.isEmpty ? AccelerometerBatch(samples: [], sequence: sequence) : nil }
            let count = timestamps.count / 8
            guard x.count == count * 4, y.count == count * 4, z.count == count * 4 else { return nil }
            // Not through the initializer below: with no capacity it returns the shared empty
            // array and stores its count there, a write other threads race with (ThreadSanitizer).
            guard count > 0 else { return AccelerometerBatch(samples: [], sequence: sequence) }
            // Finite values give x - x = 0, infinities and NaN give NaN: one test after the loop,
            // no branch per value.
            var probe: Float = 0
            var timeProbe = 0.0
            let samples = [AccelerometerSample](unsafeUninitializedCapacity: count) { samples, initialized in
                for index in 0..<count {
                    let timestamp = base.double(at: timestamps.lowerBound + index * 8)
                    let ax = base.float(at: x.lowerBound + index * 4)
                    let ay = base.float(at: y.lowerBound + index * 4)
                    let az = base.float(at: z.lowerBound + index * 4)
                    timeProbe += timestamp - timestamp
                    probe += (ax - ax) + (ay - ay) + (az - az)
                    samples.initializeElement(
                        at: index,
                        to: AccelerometerSample(timestamp: timestamp, acceleration: Vector3(x: Double(ax), y: Double(ay), z: Double(az)))
                    )
                }
                initialized = count
            }
            return probe == 0 && timeProbe == 0 ? AccelerometerBatch(samples: samples, sequence: sequence) : nil
        }
    }

    /// A device-motion batch whose samples each have every field at most once, with its declared
    /// wire type, and every required part; or nil.
    static func deviceMotionBatch(_ bytes: [UInt8]) -> DeviceMotionBatch? {
        bytes.withUnsafeBytes { buffer -> DeviceMotionBatch? in
            // Pass 1: the sample count and the sequence, so the samples are written in place.
            var reader = ProtobufWireReader(buffer, range: 0..<buffer.count)
            var sequence: UInt64?
            var count = 0
            do throws(ProtobufWireReader.Failure) {
                while let field = try reader.nextField() {
                    switch (field.number, field.wireType) {
                    case (1, _): sequence = try reader.singularVarint(field) ?? sequence
                    case (2, .lengthDelimited):
                        _ = try reader.lengthDelimited()
                        count += 1
                    case (2, _): return nil
                    default: try reader.skip(field.wireType, number: field.number)
                    }
                }
            } catch {
                return nil
            }
            guard count > 0 else { return DeviceMotionBatch(samples: [], sequence: sequence) }
            // Pass 2: the samples.
            var valid = true
            let samples = [DeviceMotion](unsafeUninitializedCapacity: count) { samples, initialized in
                initialized = 0
                var reader = ProtobufWireReader(buffer, range: 0..<buffer.count)
                do throws(ProtobufWireReader.Failure) {
                    while let field = try reader.nextField() {
                        guard field.number == 2 else {
                            try reader.skip(field.wireType, number: field.number)
                            continue
                        }
                        var sample = try reader.nestedMessage()
                        // Written in place: a sample is 161 bytes, and each copy of it was a
                        // `memcpy` call (a quarter of this decoder's time).
                        guard initialized < count, let destination = samples.baseAddress,
                            Self.deviceMotion(&sample, into: destination + initialized)
                        else {
                            valid = false
                            return
                        }
                        initialized += 1
                    }
                } catch {
                    valid = false
                }
            }
            return valid ? DeviceMotionBatch(samples: samples, sequence: sequence) : nil
        }
    }

    // MARK: - Device motion

    /// Bits of the fields a sample has had, to decline a field that comes twice.
    private struct Seen: OptionSet {
        let rawValue: UInt16
        static let timestamp = Seen(rawValue: 1 << 1)
        static let attitude = Seen(rawValue: 1 << 2)
        static let rotationRate = Seen(rawValue: 1 << 3)
        static let gravity = Seen(rawValue: 1 << 4)
        static let userAcceleration = Seen(rawValue: 1 << 5)
        static let sensorLocation = Seen(rawValue: 1 << 6)
        static let magneticField = Seen(rawValue: 1 << 7)
        static let heading = Seen(rawValue: 1 << 8)
        static let required: Seen = [.attitude, .rotationRate, .gravity, .userAcceleration]
    }

    /// Initializes `destination` with one sample and returns true, or returns false (leaving it
    /// uninitialized) when the general decoder must read the batch.
    private static func deviceMotion(_ reader: inout ProtobufWireReader, into destination: UnsafeMutablePointer<DeviceMotion>) -> Bool {
        var seen: Seen = []
        var timestamp = 0.0
        var attitude = ProtobufWireReader.FloatLanes()
        var rotationRate = attitude
        var gravity = attitude
        var userAcceleration = attitude
        var sensorLocation = SensorLocation.default
        var magnetic = attitude
        var magneticAccuracy = CalibrationAccuracy.low
        var heading: Float?
        if let head = reader.deviceMotionHead() {
            // The five leading fields at fixed places; what follows takes the loop, which
            // declines any of them sent again.
            seen = [.timestamp, .attitude, .rotationRate, .gravity, .userAcceleration]
            timestamp = head.timestamp
            attitude = head.attitude
            rotationRate = head.rotationRate
            gravity = head.gravity
            userAcceleration = head.userAcceleration
        }
        do throws(ProtobufWireReader.Failure) {
            while let field = try reader.nextField() {
                let bit = Seen(rawValue: 1 << UInt16(min(field.number, 15)))
                if field.number <= 8 {
                    guard !seen.contains(bit) else { return false }
                    seen.insert(bit)
                }
                switch (field.number, field.wireType) {
                case (1, .fixed64): timestamp = try reader.double()
                case (2, .lengthDelimited):
                    guard let value = try reader.floatMessage(count: 4) else { return false }
                    attitude = value
                case (3, .lengthDelimited):
                    guard let value = try reader.floatMessage(count: 3) else { return false }
                    rotationRate = value
                case (4, .lengthDelimited):
                    guard let value = try reader.floatMessage(count: 3) else { return false }
                    gravity = value
                case (5, .lengthDelimited):
                    guard let value = try reader.floatMessage(count: 3) else { return false }
                    userAcceleration = value
                case (6, .varint):
                    guard let value = SensorLocation(rawValue: Int(Int32(truncatingIfNeeded: try reader.varint()))) else { return false }
                    sensorLocation = value
                case (7, .lengthDelimited):
                    var nested = try reader.nestedMessage()
                    guard let value = magneticField(&nested) else { return false }
                    (magnetic, magneticAccuracy) = value
                case (8, .fixed32): heading = try reader.float()
                case (1...8, _): return false
                default: try reader.skip(field.wireType, number: field.number)
                }
            }
        } catch {
            return false
        }
        guard seen.isSuperset(of: .required) else { return false }
        // As in the accelerometer batch: x - x is 0 only for a finite x.
        let probe = attitude.finiteProbe + rotationRate.finiteProbe + gravity.finiteProbe + userAcceleration.finiteProbe + magnetic.finiteProbe
        guard probe == 0, timestamp.isFinite, heading?.isFinite ?? true else { return false }
        // Core Motion reports an invalid heading as a negative number; the model (and JSON) says nil.
        let degrees = heading.map(Double.init)
        destination.initialize(
            to: DeviceMotion(
                timestamp: timestamp,
                attitude: Quaternion(x: Double(attitude.x), y: Double(attitude.y), z: Double(attitude.z), w: Double(attitude.w)),
                rotationRate: Vector3(rotationRate),
                gravity: Vector3(gravity),
                userAcceleration: Vector3(userAcceleration),
                sensorLocation: sensorLocation,
                magneticField: seen.contains(.magneticField) ? MagneticField(field: Vector3(magnetic), accuracy: magneticAccuracy) : nil,
                heading: degrees.flatMap { $0 < 0 ? nil : $0 }
            )
        )
        return true
    }

    /// A `wearable.v1.MagneticField` message, or nil.
    private static func magneticField(_ reader: inout ProtobufWireReader) -> (ProtobufWireReader.FloatLanes, CalibrationAccuracy)? {
        if let body = reader.magneticFieldBody() {
            guard let accuracy = CalibrationAccuracy(rawValue: body.accuracy) else { return nil }
            return (body.field, accuracy)
        }
        var value = ProtobufWireReader.FloatLanes()
        var accuracy = CalibrationAccuracy.low
        var seen: UInt8 = 0
        do throws(ProtobufWireReader.Failure) {
            while let field = try reader.nextField() {
                guard (1...4).contains(field.number), seen & (1 << field.number) == 0 else { return nil }
                seen |= 1 << field.number
                switch (field.number, field.wireType) {
                case (1, .fixed32): value.x = try reader.float()
                case (2, .fixed32): value.y = try reader.float()
                case (3, .fixed32): value.z = try reader.float()
                case (4, .varint):
                    guard let known = CalibrationAccuracy(rawValue: Int32(truncatingIfNeeded: try reader.varint())) else { return nil }
                    accuracy = known
                default: return nil
                }
            }
        } catch {
            return nil
        }
        return (value, accuracy)
    }
}

extension UnsafeRawPointer {
    /// The little-endian double at `offset`, which need not be aligned.
    fileprivate func double(at offset: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    /// The little-endian float at `offset`, which need not be aligned.
    fileprivate func float(at offset: Int) -> Float {
        Float(bitPattern: UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }
}

extension ProtobufWireReader.FloatLanes {
    /// 0 when every lane is finite, NaN otherwise (x - x is 0 only for a finite x): summed over
    /// a sample's parts, one test instead of a branch per value.
    fileprivate var finiteProbe: Float { (x - x) + (y - y) + (z - z) + (w - w) }
}

extension Vector3 {
    /// The first three lanes, widened exactly.
    fileprivate init(_ lanes: ProtobufWireReader.FloatLanes) {
        self.init(x: Double(lanes.x), y: Double(lanes.y), z: Double(lanes.z))
    }
}
