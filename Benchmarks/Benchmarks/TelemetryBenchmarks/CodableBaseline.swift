/// The contract's accelerometer batch as Codable types: the Foundation `JSONDecoder` baseline
/// the hot-path decoder is chosen against.
struct CodableAccelerometerBatch: Decodable {
    struct Sample: Decodable {
        struct Acceleration: Decodable {
            var x: Double
            var y: Double
            var z: Double
        }

        var timestamp: Double
        var acceleration: Acceleration
    }

    var samples: [Sample]
    var sequence: UInt64?
}
