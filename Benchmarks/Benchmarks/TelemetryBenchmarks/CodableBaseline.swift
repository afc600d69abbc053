/// The contract's batch shapes as Codable types: the Foundation `JSONDecoder` baselines the
/// hot-path decoder is chosen against. Only the fields the gateway reads; unknown keys are
/// skipped, as `JSONDecoder` does.
struct CodableVector3: Decodable {
    var x: Double
    var y: Double
    var z: Double
}

struct CodableAccelerometerBatch: Decodable {
    struct Sample: Decodable {
        var timestamp: Double
        var acceleration: CodableVector3
    }

    var samples: [Sample]
    var sequence: UInt64?
}

struct CodableDeviceMotionBatch: Decodable {
    struct Quaternion: Decodable {
        var x: Double
        var y: Double
        var z: Double
        var w: Double
    }

    /// `{"x","y","z","accuracy"}` (µT).
    struct MagneticField: Decodable {
        var x: Double
        var y: Double
        var z: Double
        var accuracy: String
    }

    struct Sample: Decodable {
        var timestamp: Double
        var attitude: Quaternion
        var rotationRate: CodableVector3
        var gravity: CodableVector3
        var userAcceleration: CodableVector3
        var sensorLocation: String?
        var magneticField: MagneticField?
        var heading: Double?
    }

    var samples: [Sample]
    var sequence: UInt64?
}
