/// The device side of the binary encoding: writes the payloads of
/// `proto/wearable/v1/telemetry.proto` without generated code or a protobuf library, so a watch
/// app can send protobuf with nothing but this file (docs/binary-encoding.md). A team that
/// already uses swift-protobuf generates the same messages from the `.proto` file instead; the
/// bytes are the same (the tests compare them with the gateway's own encoder).
///
/// Publish the bytes with the MQTT 5 content type `application/x-protobuf` on
/// `wearables/{id}/batched/accelerometer` (``accelerometerBatch(sequence:timestamps:x:y:z:)``)
/// or `wearables/{id}/batched/device-motion`, `motion`, `headphone/motion`
/// (``deviceMotionBatch(sequence:samples:)``).
///
/// ```swift
/// // In the CMBatchedSensorManager accelerometer handler, per batch:
/// let payload = TelemetryProtobufWriter.accelerometerBatch(
///     sequence: next, timestamps: batch.map(\.timestamp),
///     x: batch.map { Float($0.acceleration.x) }, y: batch.map { Float($0.acceleration.y) }, z: batch.map { Float($0.acceleration.z) })
/// ```
public enum TelemetryProtobufWriter {
    /// An `AccelerometerBatch`: packed columns, 20 bytes per sample. The four columns must have
    /// the same length (the gateway rejects a batch whose columns differ).
    public static func accelerometerBatch(sequence: UInt64?, timestamps: [Double], x: [Float], y: [Float], z: [Float]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + timestamps.count * 20)
        if let sequence { out.varintField(1, sequence) }
        out.packed(2, timestamps)
        out.packed(3, x)
        out.packed(4, y)
        out.packed(5, z)
        return out
    }

    /// A `DeviceMotionBatch`: one `DeviceMotion` message per sample (85–110 bytes each).
    public static func deviceMotionBatch(sequence: UInt64?, samples: [MotionSample]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + samples.count * 110)
        if let sequence { out.varintField(1, sequence) }
        for sample in samples { out.message(2, deviceMotion(sample)) }
        return out
    }

    private static func deviceMotion(_ sample: MotionSample) -> [UInt8] {
        var out: [UInt8] = []
        if sample.timestamp != 0 { out.double(1, sample.timestamp) }
        out.message(2, components([sample.attitude.x, sample.attitude.y, sample.attitude.z, sample.attitude.w]))
        out.message(3, components([sample.rotationRate.x, sample.rotationRate.y, sample.rotationRate.z]))
        out.message(4, components([sample.gravity.x, sample.gravity.y, sample.gravity.z]))
        out.message(5, components([sample.userAcceleration.x, sample.userAcceleration.y, sample.userAcceleration.z]))
        if sample.sensorLocation != 0 { out.varintField(6, UInt64(bitPattern: Int64(sample.sensorLocation))) }
        if let magnetic = sample.magneticField {
            var field = components([magnetic.field.x, magnetic.field.y, magnetic.field.z])
            // An enum is a varint; a negative one (uncalibrated, -1) takes 10 bytes.
            if magnetic.accuracy != 0 { field.varintField(4, UInt64(bitPattern: Int64(magnetic.accuracy))) }
            out.message(7, field)
        }
        // `optional float heading`: present means reported, so it is written even when 0.
        if let heading = sample.heading { out.float(8, heading) }
        return out
    }

    /// A `Vector3` or `Quaternion`: fields 1… in order; proto3 leaves zeros off the wire.
    private static func components(_ values: [Float]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, value) in values.enumerated() where value != 0 { out.float(index + 1, value) }
        return out
    }
}

/// The protobuf wire format's primitives (https://protobuf.dev/programming-guides/encoding/).
extension [UInt8] {
    fileprivate mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    /// A field's key: its number and wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
    fileprivate mutating func key(_ field: Int, _ wireType: UInt64) { varint(UInt64(field) << 3 | wireType) }

    fileprivate mutating func varintField(_ field: Int, _ value: UInt64) {
        key(field, 0)
        varint(value)
    }

    fileprivate mutating func littleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func double(_ field: Int, _ value: Double) {
        key(field, 1)
        littleEndian(value.bitPattern)
    }

    fileprivate mutating func float(_ field: Int, _ value: Float) {
        key(field, 5)
        littleEndian(value.bitPattern)
    }

    fileprivate mutating func message(_ field: Int, _ bytes: [UInt8]) {
        key(field, 2)
        varint(UInt64(bytes.count))
        append(contentsOf: bytes)
    }

    /// A packed repeated `double` column (nothing for an empty column, as proto3 writes it).
    fileprivate mutating func packed(_ field: Int, _ values: [Double]) {
        guard !values.isEmpty else { return }
        key(field, 2)
        varint(UInt64(values.count * 8))
        for value in values { littleEndian(value.bitPattern) }
    }

    /// A packed repeated `float` column.
    fileprivate mutating func packed(_ field: Int, _ values: [Float]) {
        guard !values.isEmpty else { return }
        key(field, 2)
        varint(UInt64(values.count * 4))
        for value in values { littleEndian(value.bitPattern) }
    }
}
