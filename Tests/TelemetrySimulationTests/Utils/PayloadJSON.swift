import Foundation
import Testing
import TelemetryCore
import TelemetrySimulation

/// A decoded JSON object from a payload (Foundation is fine in tests).
struct PayloadJSON {
    let object: [String: Any]

    init(_ payload: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(payload))
        object = try #require(parsed as? [String: Any], "top level is not an object", sourceLocation: sourceLocation)
    }

    init(object: [String: Any]) {
        self.object = object
    }

    var keys: Set<String> { Set(object.keys) }

    func has(_ key: String) -> Bool { object[key] != nil }

    /// A JSON number, or nil (the payloads hold no booleans, which would also be NSNumbers).
    func number(_ key: String) -> Double? {
        (object[key] as? NSNumber)?.doubleValue
    }

    func string(_ key: String) -> String? { object[key] as? String }

    func child(_ key: String) -> PayloadJSON? {
        (object[key] as? [String: Any]).map(PayloadJSON.init(object:))
    }

    func children(_ key: String) -> [PayloadJSON]? {
        (object[key] as? [[String: Any]]).map { $0.map(PayloadJSON.init(object:)) }
    }

    /// `{"x","y","z"}` as a vector, when all three are numbers.
    func vector(_ key: String) -> Vector3? {
        guard let child = child(key), let x = child.number("x"), let y = child.number("y"), let z = child.number("z") else {
            return nil
        }
        return Vector3(x: x, y: y, z: z)
    }

    /// `{"x","y","z","w"}` as a quaternion, when all four are numbers.
    func quaternion(_ key: String) -> Quaternion? {
        guard let child = child(key), let x = child.number("x"), let y = child.number("y"), let z = child.number("z"),
            let w = child.number("w")
        else { return nil }
        return Quaternion(x: x, y: y, z: z, w: w)
    }
}
