internal import SwiftProtobuf

/// Decodes the binary encoding of the high-rate streams (`proto/wearable/v1/telemetry.proto`)
/// into the same ``DecodedFrame``s as their JSON payloads.
///
/// A frame is binary when its MQTT 5 content type selects ``PayloadEncoding/protobuf``
/// (`application/x-protobuf`); the stream, from the topic, names the message type:
///
/// | stream | message |
/// |---|---|
/// | `batched/accelerometer` | `wearable.v1.AccelerometerBatch` |
/// | `batched/device-motion`, `motion`, `headphone/motion` | `wearable.v1.DeviceMotionBatch` |
/// | `recorder/accelerometer` | `wearable.v1.RecordedAccelerometerChunk` |
///
/// Sensor values travel as float32 and are widened to `Double` exactly; times stay double.
/// Decoding rejects bytes that are not a message of the stream's type, parallel columns of
/// different lengths, device-motion samples without attitude, rotation rate, gravity or user
/// acceleration, NaN and infinities, and enum values the schema does not define, each as a
/// ``PayloadProblem`` worded as the JSON decoder's (`samples[3].attitude: missing`). As in JSON,
/// unknown fields are skipped and a negative heading (Core Motion's "invalid") becomes `nil`.
/// Physical bounds are ``FrameValidator``'s job, for both encodings.
///
/// Pure and allocation-bounded by the payload size; never traps on any input.
public enum ProtobufFrameDecoder {
    /// Decodes a binary frame of `stream`.
    /// - Parameters:
    ///   - bytes: the MQTT payload.
    ///   - stream: the stream from the topic; it selects the message type.
    /// - Returns: the decoded frame, or the problem; streams that are not high-rate always fail
    ///   with ``PayloadProblem/Reason/unsupportedEncoding``.
    public static func decode(_ bytes: [UInt8], stream: InboundStream) -> Result<DecodedFrame, PayloadProblem> {
        switch stream {
        case .batchedAccelerometer:
            decodeAccelerometerBatch(bytes).map(DecodedFrame.batchedAccelerometer)
        case .batchedDeviceMotion:
            decodeDeviceMotionBatch(bytes).map(DecodedFrame.batchedDeviceMotion)
        case .motion:
            decodeDeviceMotionBatch(bytes).map(DecodedFrame.motion)
        case .headphoneMotion:
            decodeDeviceMotionBatch(bytes).map(DecodedFrame.headphoneMotion)
        case .recorderAccelerometer:
            decodeRecordedAccelerometerChunk(bytes).map(DecodedFrame.recorderAccelerometer)
        case .hello, .status, .authorization, .workout, .headphoneConnection, .submersionEvent, .submersionMeasurement,
            .submersionTemperature, .pedometerData, .pedometerEvent, .altimeter:
            .failure(
                PayloadProblem(
                    .unsupportedEncoding,
                    message: "binary encoding is only defined for high-rate streams; '\(stream.rawValue)' takes JSON"
                )
            )
        }
    }

    /// Decodes a `batched/accelerometer` frame (`wearable.v1.AccelerometerBatch`).
    /// - Parameter bytes: the MQTT payload.
    /// - Returns: the batch, or the problem.
    public static func decodeAccelerometerBatch(_ bytes: [UInt8]) -> Result<AccelerometerBatch, PayloadProblem> {
        if let batch = ProtobufBatchFastPath.accelerometerBatch(bytes) { return .success(batch) }
        return readAccelerometerBatch(bytes)
    }

    /// The general path of ``decodeAccelerometerBatch(_:)``: any valid layout, every problem
    /// worded (internal: the fast path's tests compare against it).
    static func readAccelerometerBatch(_ bytes: [UInt8]) -> Result<AccelerometerBatch, PayloadProblem> {
        Result { () throws(PayloadProblem) in
            // The columns are read straight from the wire (ProtobufWireReader: no per-field
            // generic decoding, nothing allocated but the columns and the samples).
            var sequence: UInt64?
            var timestamps: [Double] = []
            var x: [Float] = []
            var y: [Float] = []
            var z: [Float] = []
            try wire(Wearable_V1_AccelerometerBatch.self, bytes) { reader throws(ProtobufWireReader.Failure) in
                while let field = try reader.nextField() {
                    switch field.number {
                    case 1: sequence = try reader.singularVarint(field) ?? sequence
                    case 2: try reader.appendDoubles(field, to: &timestamps)
                    case 3: try reader.appendFloats(field, to: &x)
                    case 4: try reader.appendFloats(field, to: &y)
                    case 5: try reader.appendFloats(field, to: &z)
                    default: try reader.skip(field.wireType, number: field.number)
                    }
                }
            }
            let count = timestamps.count
            try checkColumns(timestamps: count, ("x", x.count), ("y", y.count), ("z", z.count))
            var samples: [AccelerometerSample] = []
            samples.reserveCapacity(count)
            for index in 0..<count {
                samples.append(
                    AccelerometerSample(
                        timestamp: try finite(timestamps[index], "samples[\(index)].timestamp"),
                        acceleration: try vector(x[index], y[index], z[index], "samples[\(index)].acceleration")
                    )
                )
            }
            return AccelerometerBatch(samples: samples, sequence: sequence)
        }
    }

    /// Decodes a `batched/device-motion`, `motion` or `headphone/motion` frame
    /// (`wearable.v1.DeviceMotionBatch`).
    /// - Parameter bytes: the MQTT payload.
    /// - Returns: the batch, or the problem.
    public static func decodeDeviceMotionBatch(_ bytes: [UInt8]) -> Result<DeviceMotionBatch, PayloadProblem> {
        if let batch = ProtobufBatchFastPath.deviceMotionBatch(bytes) { return .success(batch) }
        return readDeviceMotionBatch(bytes)
    }

    /// The general path of ``decodeDeviceMotionBatch(_:)``: any valid layout, every problem
    /// worded (internal: the fast path's tests compare against it).
    static func readDeviceMotionBatch(_ bytes: [UInt8]) -> Result<DeviceMotionBatch, PayloadProblem> {
        Result { () throws(PayloadProblem) in
            // Every sample is read off the wire first, so a malformed message is reported as
            // such even when an earlier sample also lacks a field (as SwiftProtobuf did).
            var sequence: UInt64?
            var wireSamples: [WireDeviceMotion] = []
            try wire(Wearable_V1_DeviceMotionBatch.self, bytes) { reader throws(ProtobufWireReader.Failure) in
                while let field = try reader.nextField() {
                    switch field.number {
                    case 1: sequence = try reader.singularVarint(field) ?? sequence
                    case 2:
                        if var sample = try reader.nested(field) { wireSamples.append(try WireDeviceMotion(&sample)) }
                    default: try reader.skip(field.wireType, number: field.number)
                    }
                }
            }
            var samples: [DeviceMotion] = []
            samples.reserveCapacity(wireSamples.count)
            for (index, sample) in wireSamples.enumerated() {
                samples.append(try deviceMotion(sample, "samples[\(index)]"))
            }
            return DeviceMotionBatch(samples: samples, sequence: sequence)
        }
    }

    /// Decodes a `recorder/accelerometer` frame (`wearable.v1.RecordedAccelerometerChunk`).
    /// - Parameter bytes: the MQTT payload.
    /// - Returns: the chunk, or the problem.
    public static func decodeRecordedAccelerometerChunk(_ bytes: [UInt8]) -> Result<RecordedAccelerometerChunk, PayloadProblem> {
        Result { () throws(PayloadProblem) in
            let message = try decodeMessage(Wearable_V1_RecordedAccelerometerChunk.self, from: bytes)
            let count = message.timestamp.count
            try checkColumns(
                timestamps: count,
                ("start_date", message.startDate.count),
                ("x", message.x.count),
                ("y", message.y.count),
                ("z", message.z.count)
            )
            var samples: [RecordedAccelerometerSample] = []
            samples.reserveCapacity(count)
            for index in 0..<count {
                samples.append(
                    RecordedAccelerometerSample(
                        timestamp: try finite(message.timestamp[index], "samples[\(index)].timestamp"),
                        startDate: try finite(message.startDate[index], "samples[\(index)].startDate"),
                        acceleration: try vector(
                            message.x[index],
                            message.y[index],
                            message.z[index],
                            "samples[\(index)].acceleration"
                        )
                    )
                )
            }
            return RecordedAccelerometerChunk(
                identifier: message.identifier,
                samples: samples,
                sequence: message.hasSequence ? message.sequence : nil
            )
        }
    }

    // MARK: - Messages

    /// Nesting in wearable.v1 is at most 3 deep; the limit also bounds skipping unknown groups.
    private static let options: BinaryDecodingOptions = {
        var options = BinaryDecodingOptions()
        options.messageDepthLimit = 8
        options.discardUnknownFields = true
        return options
    }()

    private static func decodeMessage<M: SwiftProtobuf.Message>(_ type: M.Type, from bytes: [UInt8]) throws(PayloadProblem) -> M {
        do {
            return try M(serializedBytes: bytes, options: options)
        } catch let error as BinaryDecodingError {
            let why: String
            switch error {
            case .truncated: why = "the bytes end inside a field"
            case .malformedProtobuf: why = "malformed (invalid tag, wire type or length)"
            case .messageDepthLimit: why = "messages nested too deeply"
            case .trailingGarbage: why = "bytes left after the message"
            default: why = "\(error)"
            }
            throw malformed(M.self, why)
        } catch {
            throw malformed(M.self, "\(error)")
        }
    }

    /// Checks one wire sample and builds the model; the order of the checks is the order in
    /// which problems are reported.
    private static func deviceMotion(_ sample: WireDeviceMotion, _ path: @autoclosure () -> String) throws(PayloadProblem) -> DeviceMotion {
        guard let attitude = sample.attitude else { throw missing("attitude", in: path()) }
        guard let rotationRate = sample.rotationRate else { throw missing("rotationRate", in: path()) }
        guard let gravity = sample.gravity else { throw missing("gravity", in: path()) }
        guard let userAcceleration = sample.userAcceleration else { throw missing("userAcceleration", in: path()) }
        guard let sensorLocation = SensorLocation(rawValue: sample.sensorLocation) else {
            throw unknownValue(sample.sensorLocation, of: SensorLocation.self, "\(path()).sensorLocation")
        }
        var magneticField: MagneticField?
        if let field = sample.magneticField {
            guard let raw = Int32(exactly: field.accuracy), let accuracy = CalibrationAccuracy(rawValue: raw) else {
                throw unknownValue(field.accuracy, of: CalibrationAccuracy.self, "\(path()).magneticField.accuracy")
            }
            magneticField = MagneticField(field: try vector(field.vector, "\(path()).magneticField"), accuracy: accuracy)
        }
        var heading: Double?
        if let value = sample.heading {
            let degrees = try finite(Double(value), "\(path()).heading")
            // Core Motion reports an invalid heading as a negative number; the model (and JSON) says nil.
            heading = degrees < 0 ? nil : degrees
        }
        return DeviceMotion(
            timestamp: try finite(sample.timestamp, "\(path()).timestamp"),
            attitude: Quaternion(
                x: try finite(Double(attitude.x), "\(path()).attitude.x"),
                y: try finite(Double(attitude.y), "\(path()).attitude.y"),
                z: try finite(Double(attitude.z), "\(path()).attitude.z"),
                w: try finite(Double(attitude.w), "\(path()).attitude.w")
            ),
            rotationRate: try vector(rotationRate, "\(path()).rotationRate"),
            gravity: try vector(gravity, "\(path()).gravity"),
            userAcceleration: try vector(userAcceleration, "\(path()).userAcceleration"),
            sensorLocation: sensorLocation,
            magneticField: magneticField,
            heading: heading
        )
    }

    /// SwiftProtobuf's generated decoding of `bytes`, with the options the recorder chunk uses
    /// (internal: the differential tests hold the wire decoders to it).
    static func generated<M: SwiftProtobuf.Message>(_ type: M.Type, _ bytes: [UInt8]) -> M? {
        try? M(serializedBytes: bytes, options: options)
    }

    /// Runs `read` over the payload; a wire failure becomes the problem SwiftProtobuf's
    /// decoding reported for the same bytes.
    private static func wire<M: SwiftProtobuf.Message>(
        _ type: M.Type, _ bytes: [UInt8], _ read: (inout ProtobufWireReader) throws(ProtobufWireReader.Failure) -> Void
    ) throws(PayloadProblem) {
        let failure: ProtobufWireReader.Failure? = bytes.withUnsafeBytes { buffer in
            var reader = ProtobufWireReader(buffer, range: 0..<buffer.count)
            do throws(ProtobufWireReader.Failure) {
                try read(&reader)
                return nil
            } catch {
                return error
            }
        }
        switch failure {
        case nil: return
        case .truncated?: throw malformed(M.self, "the bytes end inside a field")
        case .malformed?: throw malformed(M.self, "malformed (invalid tag, wire type or length)")
        }
    }

    // MARK: - Checks

    /// Parallel columns must have one element per sample. Reported as the sample count being wrong
    /// (``PayloadProblem/Reason/sampleCount``), on `samples`.
    private static func checkColumns(timestamps: Int, _ columns: (name: String, count: Int)...) throws(PayloadProblem) {
        for column in columns where column.count != timestamps {
            throw PayloadProblem(
                .sampleCount,
                field: "samples",
                message: "\(timestamps) timestamps but \(column.count) \(column.name) values"
            )
        }
    }

    private static func vector(_ vector: WireDeviceMotion.Vector, _ path: @autoclosure () -> String) throws(PayloadProblem) -> Vector3 {
        try self.vector(vector.x, vector.y, vector.z, path())
    }

    private static func vector(_ x: Float, _ y: Float, _ z: Float, _ path: @autoclosure () -> String) throws(PayloadProblem) -> Vector3 {
        Vector3(
            x: try finite(Double(x), "\(path()).x"),
            y: try finite(Double(y), "\(path()).y"),
            z: try finite(Double(z), "\(path()).z")
        )
    }

    private static func finite(_ value: Double, _ path: @autoclosure () -> String) throws(PayloadProblem) -> Double {
        guard value.isFinite else { throw PayloadProblem(.notFinite, field: path(), message: "not a finite number (\(value))") }
        return value
    }

    private static func missing(_ field: String, in path: String) -> PayloadProblem {
        PayloadProblem(.missingField, field: "\(path).\(field)", message: "missing")
    }

    private static func unknownValue<Value: WireEnumeration & RawRepresentable>(
        _ raw: Int,
        of type: Value.Type,
        _ path: String
    ) -> PayloadProblem where Value.RawValue: FixedWidthInteger {
        PayloadProblem(.unknownValue, field: path, message: "unknown value \(raw); expected one of \(Value.expectedNamesAndRawValues)")
    }

    /// Bytes that are not a message of the expected type. ``PayloadProblem`` has no binary-specific
    /// reason yet: `wrongType` (the payload is not of the stream's message type) is the closest.
    private static func malformed<M: SwiftProtobuf.Message>(_ type: M.Type, _ why: String) -> PayloadProblem {
        PayloadProblem(.wrongType, message: "not a \(M.protoMessageName) message: \(why)")
    }
}
