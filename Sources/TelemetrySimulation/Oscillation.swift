#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A sine term `amplitude · sin(angularFrequency · τ + phase)`.
struct Oscillation: Sendable {
    var amplitude: Double
    /// rad/s.
    var angularFrequency: Double
    /// rad.
    var phase: Double

    init(amplitude: Double, hertz: Double, phase: Double) {
        self.amplitude = amplitude
        self.angularFrequency = 2 * Double.pi * hertz
        self.phase = phase
    }

    /// The value and its time derivative at `τ` seconds.
    @inline(__always)
    func evaluate(at time: Double) -> (value: Double, rate: Double) {
        let argument = angularFrequency * time + phase
        return (amplitude * sin(argument), amplitude * angularFrequency * cos(argument))
    }
}
