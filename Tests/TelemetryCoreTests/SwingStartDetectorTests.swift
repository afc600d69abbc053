import TelemetryCore
import TelemetrySimulation
import Testing

/// The backward scan from the impact along the rotation rate about gravity.
@Suite("Swing start detector")
struct SwingStartDetectorTests {
    static let onset = 20.0021

    static func window(_ samples: [DeviceMotion], configuration: SwingConfiguration = SwingConfiguration()) -> BatchAlignmentWindow {
        var window = BatchAlignmentWindow(configuration: configuration)
        window.append(deviceMotion: samples)
        return window
    }

    static func start(
        _ rate: @escaping (Double) -> Double, anchor: Double, configuration: SwingConfiguration = SwingConfiguration(), from: Double = 19
    ) -> Result<SwingStart, SwingStartDetector.Failure> {
        let window = Self.window(SwingSignals.motion(from: from, to: 21, rate: rate), configuration: configuration)
        return SwingStartDetector(configuration: configuration).findStart(in: window, anchor: anchor)
    }

    @Test("the onset of a linear rise is found within a millisecond, in either direction", arguments: [60.0, 120, 250], [1.0, -1])
    func onset(slope: Double, direction: Double) throws {
        let rate = SwingSignals.swingRate(onset: Self.onset, slope: slope, peak: 25, direction: direction)
        let anchor = Self.onset + 25 / slope
        let start = try Self.start(rate, anchor: anchor).get()
        #expect(abs(start.timestamp - Self.onset) < 0.001, "\(start)")
        #expect(abs(start.crossingTimestamp - (Self.onset + 1.5 / slope)) < 0.0005)
        #expect(start.direction == direction)
    }

    @Test("with extrapolation off the start is the threshold crossing")
    func crossingOnly() throws {
        var configuration = SwingConfiguration()
        configuration.maxOnsetExtrapolation = 0
        let start = try Self.start(SwingSignals.swingRate(onset: Self.onset, slope: 100, peak: 20), anchor: Self.onset + 0.2, configuration: configuration).get()
        #expect(start.timestamp == start.crossingTimestamp)
        #expect(abs(start.timestamp - (Self.onset + 0.015)) < 0.0005)
    }

    @Test("gyro noise moves the start by little")
    func noise() throws {
        var random = SplitMix64(seed: 9)
        var noise: [Double] = []
        for _ in 0..<400 { noise.append(random.nextGaussian() * 0.05) }
        let clean = SwingSignals.swingRate(onset: Self.onset, slope: 80, peak: 20)
        let rate: (Double) -> Double = { time in clean(time) + noise[Int(((time - 19) * 200).rounded()) % noise.count] }
        let start = try Self.start(rate, anchor: Self.onset + 0.25).get()
        #expect(abs(start.timestamp - Self.onset) < 0.002, "\(start)")
    }

    @Test("a short dip inside the swing does not end the scan; a consistent one does")
    func consistency() throws {
        let swing = SwingSignals.swingRate(onset: Self.onset, slope: 100, peak: 25)
        let dip: (Double) -> Double = { time in
            // Two samples (10 ms) at zero, 100 ms into the swing.
            abs(time - (Self.onset + 0.1025)) < 0.005 ? 0 : swing(time)
        }
        #expect(abs(try Self.start(dip, anchor: Self.onset + 0.25).get().timestamp - Self.onset) < 0.001)
        let pause: (Double) -> Double = { time in
            // Five samples (25 ms) at zero: the rate has consistently stopped exceeding the threshold.
            abs(time - (Self.onset + 0.1025)) < 0.011 ? 0 : swing(time)
        }
        let start = try Self.start(pause, anchor: Self.onset + 0.25).get()
        #expect(start.timestamp > Self.onset + 0.1)
    }

    @Test("no rotation, a rotation longer than a swing, and a swing without its beginning are refused")
    func failures() {
        #expect(Self.start({ _ in 0.3 }, anchor: 20.5) == .failure(.noRotation))
        let spinning: (Double) -> Double = { time in time < 20 ? 3 : 3 + 100 * (time - 20) }
        #expect(Self.start(spinning, anchor: 20.2) == .failure(.tooLong))
        let swing = SwingSignals.swingRate(onset: Self.onset, slope: 100, peak: 25)
        #expect(Self.start(swing, anchor: Self.onset + 0.25, from: Self.onset + 0.05) == .failure(.notCovered))
        let window = Self.window(SwingSignals.motion(from: 19, to: 21, rate: swing).filter { abs($0.timestamp - (Self.onset + 0.1)) > 0.02 })
        #expect(SwingStartDetector(configuration: SwingConfiguration()).findStart(in: window, anchor: Self.onset + 0.25) == .failure(.notCovered))
    }

    @Test("an impact just after the rotation dropped below the threshold still finds its swing")
    func impactSlack() throws {
        let swing = SwingSignals.swingRate(onset: Self.onset, slope: 100, peak: 20, followThrough: 0.05)
        let end = Self.onset + 0.2 + 0.05
        #expect(abs(try Self.start(swing, anchor: end + 0.03).get().timestamp - Self.onset) < 0.001)
        #expect(Self.start(swing, anchor: end + 0.2) == .failure(.noRotation))
    }

    @Test("peak and rotation angle over an interval")
    func rotation() {
        let window = Self.window(SwingSignals.motion(from: 19, to: 21) { time in time >= 20 && time < 20.2 ? -10 : 0 })
        let inside = SwingStartDetector.rotation(in: window, from: 20.05, to: 20.15, direction: -1)
        #expect(abs(inside.angle - 1.0) < 1e-9)
        #expect(inside.peak == 10)
        let whole = SwingStartDetector.rotation(in: window, from: 19.5, to: 20.5, direction: -1)
        #expect(abs(whole.angle - 2.0) < 0.06, "trapezoids smear the edges by half a sample each")
    }
}
