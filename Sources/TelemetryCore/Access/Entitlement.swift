/// A permission the operator's device registry grants; the gateway never takes it from the device.
///
/// The raw value is the contract's spelling, as written in `devices.yml`
/// (`submersion.shallow`, `motion.batched`, …).
public enum Entitlement: String, CaseIterable, Sendable, Comparable, Codable {
    /// Water submersion data with Core Motion's shallow-depth limit (6 m).
    case submersionShallow = "submersion.shallow"
    /// Water submersion data with the full-depth limit (40 m), which Apple grants on application.
    case submersionFull = "submersion.full"
    /// The batched 800 Hz accelerometer and 200 Hz device-motion streams.
    case motionBatched = "motion.batched"
    /// Head tracking from motion-capable headphones.
    case motionHeadphone = "motion.headphone"
    /// CMMotionManager device motion (≤ 100 Hz).
    case motionDevice = "motion.device"
    /// Pedometer data and pause/resume events.
    case pedometer = "pedometer"
    /// Barometric altitude.
    case altimeter = "altimeter"
    /// CMSensorRecorder's recorded accelerometer chunks.
    case recorder = "recorder"

    /// The maximum depth in metres this entitlement allows (6 shallow, 40 full), or nil when it
    /// is not a submersion entitlement.
    public var maximumDepth: Double? {
        switch self {
        case .submersionShallow: 6
        case .submersionFull: 40
        case .motionBatched, .motionHeadphone, .motionDevice, .pedometer, .altimeter, .recorder: nil
        }
    }

    /// The deepest limit among `entitlements`: 40 m when `submersion.full` is granted (with or
    /// without `submersion.shallow`), 6 m with `submersion.shallow` alone, else nil.
    /// - Parameter entitlements: the granted entitlements.
    /// - Returns: the maximum depth in metres the derivations use, or nil without a submersion entitlement.
    public static func maximumDepth(granted entitlements: Set<Entitlement>) -> Double? {
        // Without allocating: this runs for every frame.
        if entitlements.contains(.submersionFull) { return Entitlement.submersionFull.maximumDepth }
        if entitlements.contains(.submersionShallow) { return Entitlement.submersionShallow.maximumDepth }
        return nil
    }

    /// Orders by the contract spelling, so published lists are stable and alphabetical.
    public static func < (lhs: Entitlement, rhs: Entitlement) -> Bool { lhs.rawValue < rhs.rawValue }
}
