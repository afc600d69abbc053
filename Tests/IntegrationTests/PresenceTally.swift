import Foundation
import MQTTTransport

/// The `gateway/{id}/connection` outputs of devices playing status toggles
/// (``ClusterHarness/playStatus(_:rounds:interval:baseDate:with:)``): each frame changes its
/// device's state, so each must give exactly one output, carrying the frame's date, in date order.
/// Counts what the scale-out issue counted per fault: frames without output, outputs twice, out of
/// date order (and, read apart, stale retained: ``ClusterHarness/staleRetainedConnections``).
struct PresenceTally {
    /// One output: its device, its frame number (date − base date), who published it
    /// (`instance`, `@adopter` for a stand-in's) and its bytes.
    struct Output: Sendable {
        var device: String
        var frame: Int
        var publisher: String
        var payload: [UInt8]
    }

    /// Every connection output observed, in arrival order.
    let outputs: [Output]

    /// The outputs among `messages`, frame numbers counted from `baseDate`.
    init(_ messages: [MQTTMessage], baseDate: Int) {
        outputs = messages.compactMap { message in
            guard message.topic.hasSuffix("/connection"), let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                let date = object["date"] as? Double, let instance = message.properties.userProperties.first(where: { $0.name == "instance" })?.value
            else { return nil }
            let standIn = message.properties.userProperties.first(where: { $0.name == "stand-in" }).map { "@\($0.value)" } ?? ""
            return Output(device: String(message.topic.split(separator: "/")[1]), frame: Int(date) - baseDate, publisher: instance + standIn, payload: message.payload)
        }
    }

    /// Per device, the frames `0..<rounds` no output carries (devices missing none left out).
    func framesWithoutOutput(_ devices: [String], rounds: Int) -> [(String, [Int])] {
        ClusterHarness.framesWithoutOutput(devices, rounds: rounds, seen: outputs.map { ($0.device, $0.frame) })
    }

    /// The frames published more than once, keyed `device#frame`, with each copy.
    var repeated: [String: [Output]] {
        Dictionary(grouping: outputs, by: { "\($0.device)#\($0.frame)" }).filter { $0.value.count > 1 }
    }

    /// Outputs that arrived after an output of a newer frame of the same device (each frame
    /// counted where it first arrived), each with the outputs of newer frames that came before it.
    var outOfDateOrder: [(output: Output, overtakenBy: [Output])] {
        var late: [(output: Output, overtakenBy: [Output])] = []
        var arrived: [String: [Output]] = [:]
        var seen = Set<String>()
        for output in outputs where seen.insert("\(output.device)#\(output.frame)").inserted {
            let newer = arrived[output.device, default: []].filter { $0.frame > output.frame }
            if !newer.isEmpty { late.append((output, newer)) }
            arrived[output.device, default: []].append(output)
        }
        return late
    }

    /// Whether every device has an output of frame `frame`.
    func allReached(_ frame: Int, of devices: [String]) -> Bool {
        let reached = Set(outputs.filter { $0.frame >= frame }.map(\.device))
        return devices.allSatisfy(reached.contains)
    }
}
