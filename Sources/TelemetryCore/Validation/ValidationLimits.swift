/// The physical bounds and batch lengths ``FrameValidator`` checks, in one place.
///
/// Every default is a bound no genuine Core Motion sample crosses, so a value beyond it is a
/// broken sensor, a unit mix-up (m/s² sent as g, degrees as radians) or a forged frame:
///
/// | limit | default | why |
/// |---|---|---|
/// | ``maxAcceleration`` | 64 g | the IMUs Core Motion streams have full-scale ranges of a few tens of g (±16 g is typical; the high-g sensor behind crash detection is not exposed); 64 g leaves headroom yet rejects m/s² sent as g (×9.81) at rest-plus-motion and garbage. Checked on the vector magnitude of raw acceleration and of `userAcceleration`. |
/// | ``maxRotationRate`` | 50 rad/s | typical gyroscopes saturate at ±2,000 °/s ≈ 35 rad/s; a fast swing peaks around 20–30 rad/s. Degrees per second sent as rad/s exceed it quickly. Vector magnitude. |
/// | ``quaternionNormTolerance`` | 0.01 | an attitude is a unit quaternion; serialisation rounding (6 decimals) moves the norm by < 10⁻⁵. |
/// | ``maxGravity`` | 1.5 g | `gravity` is about 1 g in any orientation (Core Motion does not promise exact normalisation, so no lower bound); 1.5 g rejects m/s² and garbage. Vector magnitude. |
/// | ``maxMagneticField`` | 5,000 µT | typical phone and watch magnetometers saturate near ±4,900 µT; Earth's field is 25–65 µT. Vector magnitude. |
/// | ``depthRange`` | −1…200 m | depth is positive under water; −1 m allows noise at the surface; 200 m is five times the 40 m full entitlement (sensor error starts near 44 m), beyond any reading a watch reports. |
/// | ``pressureRange`` | 0…3,000 kPa | absolute pressure at 200 m of sea water is about 2,110 kPa; air is about 101 kPa at sea level. Applies to submersion `pressure` and `surfacePressure` and the altimeter's `pressure`. |
/// | ``waterTemperatureRange`` | −5…60 °C | sea water freezes near −2 °C; hot springs and pools stay below 60 °C. |
/// | ``accelerometerBatchLength`` | 1…1,600 | `batched/accelerometer`: 800 Hz, one batch per second; twice that allows for a late or merged delivery. |
/// | ``deviceMotionBatchLength`` | 1…400 | `batched/device-motion`: 200 Hz, one batch per second; twice that. |
/// | ``motionBatchLength`` | 1…200 | `motion` and `headphone/motion`: at most 100 Hz (CMMotionManager's ceiling; headphones ~25 Hz); frames carry a few samples, so 2 s of the highest rate bounds a bridge that buffers. |
/// | ``recordedChunkLength`` | 1…3,000 | `recorder/accelerometer`: 50 Hz history; a chunk of up to one minute. |
///
/// Rules that need no number: every number is finite; timestamps and dates are ≥ 0; timestamps do
/// not decrease within a batch; heading is in [0, 360) degrees; uncertainties, step and floor
/// counts, distance, pace and cadence are ≥ 0; a pedometer interval does not end before it starts.
/// The same table is in `docs/validation.md`.
public struct ValidationLimits: Sendable, Equatable {
    /// Largest acceleration magnitude (raw and `userAcceleration`), g.
    public var maxAcceleration: Double
    /// Largest rotation-rate magnitude, rad/s.
    public var maxRotationRate: Double
    /// Largest allowed |‖attitude‖ − 1| (unitless).
    public var quaternionNormTolerance: Double
    /// Largest `gravity` magnitude, g.
    public var maxGravity: Double
    /// Largest magnetic-field magnitude, µT.
    public var maxMagneticField: Double
    /// Allowed submersion depth, m (positive under water).
    public var depthRange: ClosedRange<Double>
    /// Allowed pressure (submersion `pressure` and `surfacePressure`, altimeter `pressure`), kPa.
    public var pressureRange: ClosedRange<Double>
    /// Allowed water temperature, °C.
    public var waterTemperatureRange: ClosedRange<Double>
    /// Allowed samples per `batched/accelerometer` frame.
    public var accelerometerBatchLength: ClosedRange<Int>
    /// Allowed samples per `batched/device-motion` frame.
    public var deviceMotionBatchLength: ClosedRange<Int>
    /// Allowed samples per `motion` or `headphone/motion` frame.
    public var motionBatchLength: ClosedRange<Int>
    /// Allowed samples per `recorder/accelerometer` frame.
    public var recordedChunkLength: ClosedRange<Int>

    /// Creates limits; every parameter defaults to the documented value.
    /// - Parameters:
    ///   - maxAcceleration: g; default 64.
    ///   - maxRotationRate: rad/s; default 50.
    ///   - quaternionNormTolerance: unitless; default 0.01.
    ///   - maxGravity: g; default 1.5.
    ///   - maxMagneticField: µT; default 5,000.
    ///   - depthRange: m; default −1…200.
    ///   - pressureRange: kPa; default 0…3,000.
    ///   - waterTemperatureRange: °C; default −5…60.
    ///   - accelerometerBatchLength: samples; default 1…1,600.
    ///   - deviceMotionBatchLength: samples; default 1…400.
    ///   - motionBatchLength: samples; default 1…200.
    ///   - recordedChunkLength: samples; default 1…3,000.
    public init(
        maxAcceleration: Double = 64,
        maxRotationRate: Double = 50,
        quaternionNormTolerance: Double = 0.01,
        maxGravity: Double = 1.5,
        maxMagneticField: Double = 5_000,
        depthRange: ClosedRange<Double> = -1...200,
        pressureRange: ClosedRange<Double> = 0...3_000,
        waterTemperatureRange: ClosedRange<Double> = -5...60,
        accelerometerBatchLength: ClosedRange<Int> = 1...1_600,
        deviceMotionBatchLength: ClosedRange<Int> = 1...400,
        motionBatchLength: ClosedRange<Int> = 1...200,
        recordedChunkLength: ClosedRange<Int> = 1...3_000
    ) {
        self.maxAcceleration = maxAcceleration
        self.maxRotationRate = maxRotationRate
        self.quaternionNormTolerance = quaternionNormTolerance
        self.maxGravity = maxGravity
        self.maxMagneticField = maxMagneticField
        self.depthRange = depthRange
        self.pressureRange = pressureRange
        self.waterTemperatureRange = waterTemperatureRange
        self.accelerometerBatchLength = accelerometerBatchLength
        self.deviceMotionBatchLength = deviceMotionBatchLength
        self.motionBatchLength = motionBatchLength
        self.recordedChunkLength = recordedChunkLength
    }

    /// The allowed number of samples per frame of a high-rate stream.
    /// - Parameter stream: the stream.
    /// - Returns: the range, or nil for a stream without samples.
    public func batchLength(for stream: InboundStream) -> ClosedRange<Int>? {
        switch stream {
        case .batchedAccelerometer: accelerometerBatchLength
        case .batchedDeviceMotion: deviceMotionBatchLength
        case .motion, .headphoneMotion: motionBatchLength
        case .recorderAccelerometer: recordedChunkLength
        case .hello, .status, .authorization, .workout, .headphoneConnection, .submersionEvent, .submersionMeasurement,
            .submersionTemperature, .pedometerData, .pedometerEvent, .altimeter:
            nil
        }
    }
}
