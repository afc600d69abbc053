public import TelemetryCore

/// What a ``TremorScenario`` minute contains: the tremor class it was generated with (or
/// `none`), its frequency, and which seconds are voluntary movement or missing data.
public struct TremorMinuteTruth: Sendable, Equatable {
    /// What one second of the minute holds.
    public enum SecondState: String, Sendable, Equatable {
        /// Samples missing for at least part of the second.
        case gap
        /// A voluntary movement (reaching) during at least part of the second.
        case voluntary
        /// At rest with the minute's tremor.
        case tremor
        /// At rest without tremor in the 3–7 Hz band.
        case rest
    }

    /// Start of the minute, Unix epoch seconds (a minute boundary).
    public var startDate: Double
    /// End of the minute, Unix epoch seconds (exclusive).
    public var endDate: Double
    /// The class the tremor was generated in, `none` for a tremor-free minute (never `unknown`).
    public var severity: TremorSeverity
    /// The tremor's frequency, Hz; nil in a tremor-free minute.
    public var frequency: Double?
    /// The tremor's nominal peak-to-peak displacement, cm (±10 % slow modulation); nil without tremor.
    public var peakToPeak: Double?
    /// The unit direction the tremor moves along, device frame; nil without tremor.
    public var direction: Vector3?
    /// Voluntary movements, seconds since the minute's start.
    public var voluntary: [Range<Double>]
    /// Stretches without samples, seconds since the minute's start.
    public var gaps: [Range<Double>]

    /// Creates a minute's truth.
    public init(
        startDate: Double, endDate: Double, severity: TremorSeverity, frequency: Double?, peakToPeak: Double?, direction: Vector3?,
        voluntary: [Range<Double>], gaps: [Range<Double>]
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.severity = severity
        self.frequency = frequency
        self.peakToPeak = peakToPeak
        self.direction = direction
        self.voluntary = voluntary
        self.gaps = gaps
    }

    /// One state per whole second of the minute; a gap wins over a voluntary movement, which
    /// wins over rest or tremor.
    public var seconds: [SecondState] {
        let count = Int((endDate - startDate).rounded())
        return (0..<count).map { second in
            let span = Double(second)..<Double(second + 1)
            if gaps.contains(where: { $0.overlaps(span) }) { return .gap }
            if voluntary.contains(where: { $0.overlaps(span) }) { return .voluntary }
            return severity.isTremor ? .tremor : .rest
        }
    }
}
