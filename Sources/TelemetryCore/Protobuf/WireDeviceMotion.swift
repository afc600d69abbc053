/// One `wearable.v1.DeviceMotion` as read off the wire, before any check: what
/// ``ProtobufFrameDecoder`` turns into a ``DeviceMotion`` (or a problem). A plain value, so a
/// batch's samples need no allocation beyond their array.
struct WireDeviceMotion {
    /// `wearable.v1.Vector3`.
    struct Vector {
        var x: Float = 0
        var y: Float = 0
        var z: Float = 0
    }

    /// `wearable.v1.Quaternion`.
    struct Rotation {
        var x: Float = 0
        var y: Float = 0
        var z: Float = 0
        var w: Float = 0
    }

    /// `wearable.v1.MagneticField`.
    struct Field {
        var vector = Vector()
        var accuracy = 0
    }

    var timestamp: Double = 0
    var attitude: Rotation?
    var rotationRate: Vector?
    var gravity: Vector?
    var userAcceleration: Vector?
    var sensorLocation = 0
    var magneticField: Field?
    var heading: Float?

    /// Reads one sample's fields. A nested message that appears twice is merged into the first,
    /// field by field, as protobuf requires; unknown fields, and known ones sent with another
    /// wire type, are skipped (SwiftProtobuf's rules).
    init(_ reader: inout ProtobufWireReader) throws(ProtobufWireReader.Failure) {
        while let field = try reader.nextField() {
            switch field.number {
            case 1: timestamp = try reader.singularDouble(field) ?? timestamp
            case 2:
                guard var nested = try reader.nested(field) else { continue }
                var value = attitude ?? Rotation()
                while let inner = try nested.nextField() {
                    switch inner.number {
                    case 1: value.x = try nested.singularFloat(inner) ?? value.x
                    case 2: value.y = try nested.singularFloat(inner) ?? value.y
                    case 3: value.z = try nested.singularFloat(inner) ?? value.z
                    case 4: value.w = try nested.singularFloat(inner) ?? value.w
                    default: try nested.skip(inner.wireType, number: inner.number)
                    }
                }
                attitude = value
            case 3: rotationRate = try Self.vector(field, &reader, merging: rotationRate)
            case 4: gravity = try Self.vector(field, &reader, merging: gravity)
            case 5: userAcceleration = try Self.vector(field, &reader, merging: userAcceleration)
            case 6: sensorLocation = try reader.singularEnum(field) ?? sensorLocation
            case 7:
                guard var nested = try reader.nested(field) else { continue }
                var value = magneticField ?? Field()
                while let inner = try nested.nextField() {
                    switch inner.number {
                    case 1: value.vector.x = try nested.singularFloat(inner) ?? value.vector.x
                    case 2: value.vector.y = try nested.singularFloat(inner) ?? value.vector.y
                    case 3: value.vector.z = try nested.singularFloat(inner) ?? value.vector.z
                    case 4: value.accuracy = try nested.singularEnum(inner) ?? value.accuracy
                    default: try nested.skip(inner.wireType, number: inner.number)
                    }
                }
                magneticField = value
            case 8: heading = try reader.singularFloat(field) ?? heading
            default: try reader.skip(field.wireType, number: field.number)
            }
        }
    }

    /// Reads a Vector3 field merged into `value`; a field sent with another wire type leaves
    /// `value` as it was.
    private static func vector(_ field: ProtobufWireReader.Field, _ reader: inout ProtobufWireReader, merging value: Vector?)
        throws(ProtobufWireReader.Failure) -> Vector?
    {
        guard var nested = try reader.nested(field) else { return value }
        var vector = value ?? Vector()
        while let inner = try nested.nextField() {
            switch inner.number {
            case 1: vector.x = try nested.singularFloat(inner) ?? vector.x
            case 2: vector.y = try nested.singularFloat(inner) ?? vector.y
            case 3: vector.z = try nested.singularFloat(inner) ?? vector.z
            default: try nested.skip(inner.wireType, number: inner.number)
            }
        }
        return vector
    }
}
