import Foundation
import MQTTTransport
import TelemetryCore

/// A watch's CMSensorRecorder accelerometer history as tests upload it, and the samples a
/// recorder query's answers carry, decoded exactly.
enum RecorderHistory {
    /// `count` chunks of 150 samples at 50 Hz from `start`, with accelerations unique per sample
    /// (full-precision doubles) so a wrong, missing or repeated sample shows.
    static func chunks(_ count: Int, from start: Double, identifier: UInt64) -> [RecordedAccelerometerChunk] {
        (0..<count).map { chunk in
            let samples = (0..<150).map { i in
                let index = chunk * 150 + i
                let date = start + Double(index) * 0.02
                return RecordedAccelerometerSample(
                    timestamp: date - start + 5_000.123, startDate: date, acceleration: Vector3(x: Double(index) / 10_007, y: -0.612_345_678_9, z: 0.8))
            }
            return RecordedAccelerometerChunk(identifier: identifier, samples: samples)
        }
    }

    /// The samples of a query's answer chunks (every answer but the final one), in order.
    static func samples(of answers: [MQTTMessage]) throws -> [RecordedAccelerometerSample] {
        // JSONDecoder, not JSONSerialization: the latter rounds some full-precision doubles on Linux.
        try answers.dropLast().flatMap { try JSONDecoder().decode(AnswerChunk.self, from: Data($0.payload)).samples }.map {
            RecordedAccelerometerSample(timestamp: $0.timestamp, startDate: $0.startDate, acceleration: Vector3(x: $0.acceleration.x, y: $0.acceleration.y, z: $0.acceleration.z))
        }
    }

    /// One answer chunk as the wire contract writes it.
    private struct AnswerChunk: Decodable {
        struct Sample: Decodable {
            struct Acceleration: Decodable { let x, y, z: Double }
            let timestamp: Double
            let startDate: Double
            let acceleration: Acceleration
        }
        let samples: [Sample]
    }
}
