internal import SwiftProtobuf

/// Encodes high-rate stream payloads in the binary encoding (`proto/wearable/v1/telemetry.proto`),
/// for the simulator and tests; publish them with the content type
/// `application/x-protobuf` (``PayloadEncoding/protobuf``).
///
/// Times (`timestamp`, `startDate`) are written as double, sensor values rounded to the nearest
/// float32 (values beyond float32's range become infinities, which the gateway rejects, as the
/// JSON encoder's `null` for non-finite numbers). So `decode(encode(x))` equals `x` within
/// float32 precision: each sensor value within a relative 2⁻²⁴. Optional parts (`sequence`,
/// `magneticField`, `heading`) are written only when present.
public enum ProtobufFrameEncoder {
    /// `batched/accelerometer`: a `wearable.v1.AccelerometerBatch`, 20 bytes per sample.
    /// - Parameter batch: the batch.
    /// - Returns: the payload bytes.
    public static func encode(_ batch: AccelerometerBatch) -> [UInt8] {
        var message = Wearable_V1_AccelerometerBatch()
        if let sequence = batch.sequence { message.sequence = sequence }
        message.timestamp = batch.samples.map(\.timestamp)
        message.x = batch.samples.map { Float($0.acceleration.x) }
        message.y = batch.samples.map { Float($0.acceleration.y) }
        message.z = batch.samples.map { Float($0.acceleration.z) }
        return serialized(message)
    }

    /// `batched/device-motion`, `motion`, `headphone/motion`: a `wearable.v1.DeviceMotionBatch`.
    /// - Parameter batch: the batch.
    /// - Returns: the payload bytes.
    public static func encode(_ batch: DeviceMotionBatch) -> [UInt8] {
        var message = Wearable_V1_DeviceMotionBatch()
        if let sequence = batch.sequence { message.sequence = sequence }
        message.samples = batch.samples.map(deviceMotion)
        return serialized(message)
    }

    /// `recorder/accelerometer`: a `wearable.v1.RecordedAccelerometerChunk`, 28 bytes per sample.
    /// - Parameter chunk: the chunk.
    /// - Returns: the payload bytes.
    public static func encode(_ chunk: RecordedAccelerometerChunk) -> [UInt8] {
        var message = Wearable_V1_RecordedAccelerometerChunk()
        if let sequence = chunk.sequence { message.sequence = sequence }
        message.identifier = chunk.identifier
        message.timestamp = chunk.samples.map(\.timestamp)
        message.startDate = chunk.samples.map(\.startDate)
        message.x = chunk.samples.map { Float($0.acceleration.x) }
        message.y = chunk.samples.map { Float($0.acceleration.y) }
        message.z = chunk.samples.map { Float($0.acceleration.z) }
        return serialized(message)
    }

    /// Encodes a decoded frame of a high-rate stream; the inverse of ``ProtobufFrameDecoder/decode(_:stream:)``
    /// up to float32 rounding.
    /// - Parameter frame: the frame.
    /// - Returns: the payload bytes, or nil when the frame's stream has no binary encoding.
    public static func encode(_ frame: DecodedFrame) -> [UInt8]? {
        switch frame {
        case .batchedAccelerometer(let batch): encode(batch)
        case .batchedDeviceMotion(let batch), .motion(let batch), .headphoneMotion(let batch): encode(batch)
        case .recorderAccelerometer(let chunk): encode(chunk)
        case .hello, .status, .authorization, .workout, .headphoneConnection, .submersionEvent, .submersionMeasurement,
            .submersionTemperature, .pedometerData, .pedometerEvent, .altimeter:
            nil
        }
    }

    private static func deviceMotion(_ sample: DeviceMotion) -> Wearable_V1_DeviceMotion {
        var message = Wearable_V1_DeviceMotion()
        message.timestamp = sample.timestamp
        message.attitude = quaternion(sample.attitude)
        message.rotationRate = vector(sample.rotationRate)
        message.gravity = vector(sample.gravity)
        message.userAcceleration = vector(sample.userAcceleration)
        // Every model case has a schema value (tested); UNRECOGNIZED is only for foreign input.
        message.sensorLocation = Wearable_V1_SensorLocation(rawValue: sample.sensorLocation.rawValue) ?? .default
        if let field = sample.magneticField {
            var magneticField = Wearable_V1_MagneticField()
            magneticField.x = Float(field.field.x)
            magneticField.y = Float(field.field.y)
            magneticField.z = Float(field.field.z)
            magneticField.accuracy = Wearable_V1_CalibrationAccuracy(rawValue: Int(field.accuracy.rawValue)) ?? .uncalibrated
            message.magneticField = magneticField
        }
        if let heading = sample.heading { message.heading = Float(heading) }
        return message
    }

    private static func vector(_ vector: Vector3) -> Wearable_V1_Vector3 {
        var message = Wearable_V1_Vector3()
        message.x = Float(vector.x)
        message.y = Float(vector.y)
        message.z = Float(vector.z)
        return message
    }

    private static func quaternion(_ quaternion: Quaternion) -> Wearable_V1_Quaternion {
        var message = Wearable_V1_Quaternion()
        message.x = Float(quaternion.x)
        message.y = Float(quaternion.y)
        message.z = Float(quaternion.z)
        message.w = Float(quaternion.w)
        return message
    }

    /// The wire bytes of any wearable.v1 message (internal: tests build malformed messages with it).
    static func serialized(_ message: some SwiftProtobuf.Message) -> [UInt8] {
        do {
            return try message.serializedBytes()
        } catch {
            // Proto3 messages have no required fields; only a message over 2 GiB fails (misuse).
            preconditionFailure("serializing \(type(of: message).protoMessageName) failed: \(error)")
        }
    }
}
