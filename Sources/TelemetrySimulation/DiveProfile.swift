#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
import TelemetryCore

/// Repeated dives as a pure function of time: a surface interval, a descent, a bottom phase,
/// an ascent, a rest. Target depths cycle through 0.6, 0.95, 1.05 and 1.2 × the maximum
/// depth, so the device-side depth state visits deep, approaching, past and sensor error.
struct DiveProfile: Sendable {
    /// Entitlement maximum depth M, m.
    var maximumDepth: Double
    /// Seconds at the surface before each dive.
    var surfaceInterval = 10.0
    /// Seconds at the bottom.
    var bottomDuration = 20.0
    /// Seconds at the surface after each dive, before the next surface interval.
    var restDuration = 20.0
    /// Descent and ascent speeds for the deepest dive, m/s.
    var descentSpeed = 0.4
    var ascentSpeed = 0.25
    static let targetFractions = [0.6, 0.95, 1.05, 1.2]

    private var deepest: Double { maximumDepth * (Self.targetFractions.max() ?? 1) }
    var descentDuration: Double { deepest / descentSpeed }
    var ascentDuration: Double { deepest / ascentSpeed }
    /// Seconds from one dive's surface interval to the next.
    var cycleDuration: Double { surfaceInterval + descentDuration + bottomDuration + ascentDuration + restDuration }

    /// Seconds after start when dive `cycle` (0, 1, …) goes under.
    func submergeTime(ofDive cycle: Int) -> Double {
        Double(cycle) * cycleDuration + surfaceInterval
    }

    /// Seconds after start when dive `cycle` surfaces.
    func surfaceTime(ofDive cycle: Int) -> Double {
        submergeTime(ofDive: cycle) + descentDuration + bottomDuration + ascentDuration
    }

    /// The dive under way at `time` and the seconds since it went under, or `nil` at the surface.
    func dive(at time: Double) -> (cycle: Int, sinceSubmerged: Double)? {
        guard time >= 0 else { return nil }
        let cycle = Int((time / cycleDuration).rounded(.down))
        let since = time - submergeTime(ofDive: cycle)
        guard since >= 0, time < surfaceTime(ofDive: cycle) else { return nil }
        return (cycle, since)
    }

    /// True depth at `time` in m, or `nil` when not submerged.
    func depth(at time: Double) -> Double? {
        guard let (cycle, since) = dive(at: time) else { return nil }
        let target = maximumDepth * Self.targetFractions[cycle % Self.targetFractions.count]
        if since < descentDuration {
            return target * (1 - cos(Double.pi * since / descentDuration)) / 2
        }
        let bottomEnd = descentDuration + bottomDuration
        if since < bottomEnd {
            return target + 0.1 * sin(2 * Double.pi * (since - descentDuration) / 7)
        }
        let ascent = (since - bottomEnd) / ascentDuration
        return target * (1 + cos(Double.pi * ascent)) / 2
    }

    /// The device-side depth band for `depth` m, by the wire contract's rule.
    func depthState(forDepth depth: Double?) -> DepthState {
        guard let depth else { return .notSubmerged }
        if depth < 1 { return .submergedShallow }
        if depth < 0.9 * maximumDepth { return .submergedDeep }
        if depth <= maximumDepth { return .approachingMaxDepth }
        if depth <= 1.1 * maximumDepth { return .pastMaxDepth }
        return .sensorDepthError
    }
}
