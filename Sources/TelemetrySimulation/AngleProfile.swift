/// One Euler angle over time: a fixed base plus a slow and a fast oscillation (rad, rad/s).
struct AngleProfile: Sendable {
    var base: Double
    var slow: Oscillation
    var fast: Oscillation

    @inline(__always)
    func evaluate(at time: Double) -> (value: Double, rate: Double) {
        let slowPart = slow.evaluate(at: time)
        let fastPart = fast.evaluate(at: time)
        return (base + slowPart.value + fastPart.value, slowPart.rate + fastPart.rate)
    }
}
