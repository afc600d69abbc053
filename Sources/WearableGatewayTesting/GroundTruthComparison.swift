import Foundation
import MQTTTransport
import TelemetryCore
import TelemetrySimulation

/// Compares what a gateway derived with a simulator scenario's ground truth, as a diff:
/// `wearable-sim publish --expect`, and usable from tests.
///
/// Each function takes the messages received on the scenario device's topics and returns the
/// diff lines: empty when they match; otherwise `-` lines say what the ground truth expected
/// and `+` lines what arrived, per position.
public enum GroundTruthComparison {
    /// Depth states (`submersion/depth-state`, by `state` name) in order against
    /// ``DiveScenario/expectedDepthStates(hysteresis:waterDensity:)``: exactly the same sequence.
    public static func depthStates(expected: [DepthState], received: [MQTTMessage]) -> [String] {
        let states = received.filter { $0.topic.hasSuffix("/" + TopicScheme.Leaf.submersionDepthState.rawValue) }.map { $0.jsonObject?["state"] as? String ?? "?" }
        let wanted = expected.map(\.name)
        guard states != wanted else { return [] }
        var lines = ["depth states: expected \(wanted.count), received \(states.count)"]
        for index in 0..<max(states.count, wanted.count) {
            let want = index < wanted.count ? wanted[index] : nil
            let got = index < states.count ? states[index] : nil
            if want == got {
                lines.append("  \(index + 1) \(want ?? "")")
            } else {
                if let want { lines.append("- \(index + 1) \(want)") }
                if let got { lines.append("+ \(index + 1) \(got)") }
            }
        }
        return lines
    }

    /// Run segments (`pedometer/segment`) in order against ``RunScenario/expectedSegments(startDate:hillHeight:)``:
    /// the same count, index, start and end dates and hill flag; steps and distance within
    /// 6, elevation gain within 1.5 m (the pedometer's and altimeter's resolution, see
    /// docs/run-segments.md).
    public static func runSegments(expected: [RunScenario.ExpectedSegment], received: [MQTTMessage]) -> [String] {
        let segments = received.filter { $0.topic.hasSuffix("/" + TopicScheme.Leaf.pedometerSegment.rawValue) }.map { $0.jsonObject ?? [:] }
        var lines: [String] = []
        for index in 0..<max(segments.count, expected.count) {
            guard index < expected.count else {
                lines.append("+ unexpected segment \(describe(segments[index]))")
                continue
            }
            let truth = expected[index]
            guard index < segments.count else {
                lines.append("- missing segment #\(truth.index) \(truth.startDate)…\(truth.endDate), \(Int(truth.steps)) steps")
                continue
            }
            let segment = segments[index]
            func number(_ key: String) -> Double { (segment[key] as? NSNumber)?.doubleValue ?? .nan }
            let checks: [(String, Double, Double, Double)] = [
                ("index", Double(truth.index), number("index"), 0), ("startDate", truth.startDate, number("startDate"), 0),
                ("endDate", truth.endDate, number("endDate"), 0), ("steps", truth.steps, number("steps"), 6),
                ("distance", truth.distance, number("distance"), 6), ("elevationGain", truth.elevationGain, number("elevationGain"), 1.5),
            ]
            for (field, want, got, tolerance) in checks where !(abs(want - got) <= tolerance) {
                lines.append("- segment #\(truth.index) \(field) \(want)\(tolerance > 0 ? " ± \(tolerance)" : "")")
                lines.append("+ segment #\(truth.index) \(field) \(got)")
            }
            if segment["hill"] as? Bool != truth.hill {
                lines.append("- segment #\(truth.index) hill \(truth.hill)")
                lines.append("+ segment #\(truth.index) hill \(segment["hill"].map { "\($0)" } ?? "absent")")
            }
        }
        return lines
    }

    private static func describe(_ segment: [String: Any]) -> String {
        ["index", "startDate", "endDate", "steps"].map { "\($0)=\(segment[$0] ?? "?")" }.joined(separator: " ")
    }
}
