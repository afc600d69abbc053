#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The per-device constants of a simulation run, drawn once from the device's seed.
struct DeviceEnvironment: Sendable {
    /// Simulated seconds after the generator's start at which the device starts (ms steps, < 1 s),
    /// so devices do not all publish at the same instant.
    var startOffset: Double
    /// Seconds since boot when the device starts.
    var uptimeAtStart: Double
    /// Elevation of the starting point above sea level, m.
    var baseAltitude: Double
    /// Amplitude of the up-and-down route (m) over ``hillPeriod`` seconds.
    var hillHeight: Double
    var hillPeriod = 240.0
    /// Water temperature at the surface, °C.
    var surfaceWaterTemperature: Double
    /// m per step.
    var strideLength: Double
    /// steps/s while moving.
    var cadence: Double

    init(device: SimulatedDevice, random: inout SplitMix64) {
        startOffset = Double(random.next() % 1000) / 1000
        uptimeAtStart = Double(3_600_000 + random.next() % 860_000_000) / 1000
        let isDiver = device.activity == .underwaterDiving
        baseAltitude = isDiver ? random.nextDouble(in: 0...5) : random.nextDouble(in: 0...300)
        hillHeight = device.activity == .walking ? 12 : 3
        surfaceWaterTemperature = random.nextDouble(in: 18...26)
        strideLength = random.nextDouble(in: 0.65...0.85)
        cadence =
            switch device.activity {
            case .walking: 1.8
            case .tennis: 1.4
            case .baseball: 0.5
            case .underwaterDiving: 0.3
            }
    }

    /// Altitude above the starting point `time` seconds after start, m (0 at 0): up and down a hill.
    func altitude(at time: Double) -> Double {
        hillHeight * (1 - cos(2 * Double.pi * time / hillPeriod)) / 2
    }

    /// Total climb and descent since start, m, for the floor counters.
    func climb(at time: Double) -> (ascended: Double, descended: Double) {
        let completedHills = (time / hillPeriod).rounded(.down)
        let withinHill = time - completedHills * hillPeriod
        let base = completedHills * hillHeight
        if withinHill < hillPeriod / 2 {
            return (base + altitude(at: withinHill), base)
        }
        return (base + hillHeight, base + hillHeight - altitude(at: withinHill))
    }

    /// Air pressure at `altitude` m above sea level, kPa (international standard atmosphere).
    static func airPressure(atAltitude altitude: Double) -> Double {
        101.325 * pow(1 - 2.25577e-5 * altitude, 5.25588)
    }

    /// Water pressure at `depth` m below a surface at `surfacePressure` kPa (sea water, 1025 kg/m³).
    static func waterPressure(atDepth depth: Double, surfacePressure: Double) -> Double {
        surfacePressure + 1025 * standardGravity * depth / 1000
    }

    /// Pedometer pauses: the wearer stands still from second 20 to 26 of every 30.
    static let pedometerCycle = 30.0
    static let pedometerPauseStart = 20.0
    static let pedometerPauseEnd = 26.0

    /// Whether the wearer is standing still `time` seconds after start.
    static func isPedometerPaused(at time: Double) -> Bool {
        let withinCycle = time - (time / pedometerCycle).rounded(.down) * pedometerCycle
        return withinCycle >= pedometerPauseStart && withinCycle < pedometerPauseEnd
    }
}
