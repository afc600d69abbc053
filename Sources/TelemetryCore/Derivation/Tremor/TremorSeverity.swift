/// How much tremor one stretch of time shows, as Core Motion's `CMTremorResult` reports it
/// (`percentUnknown`, `percentNone`, `percentSlight`, `percentMild`, `percentModerate`,
/// `percentStrong`) for resting tremor in the 3–7 Hz band.
///
/// The gateway grades a window by its estimated peak-to-peak displacement with the MDS-UPDRS
/// rest-tremor amplitude bands (item 3.17): slight below 1 cm, mild 1–3 cm, moderate 3–10 cm,
/// strong 10 cm or more (`docs/tremor.md`).
public enum TremorSeverity: String, Sendable, Equatable, Hashable, CaseIterable {
    /// No verdict: data missing, or the arm moved on purpose (resting tremor cannot be judged).
    case unknown
    /// At rest, no tremor above ``TremorConfiguration/minDisplacement`` stands out in the band.
    case none
    /// Tremor below 1 cm peak to peak.
    case slight
    /// Tremor of 1 cm up to 3 cm peak to peak.
    case mild
    /// Tremor of 3 cm up to 10 cm peak to peak.
    case moderate
    /// Tremor of 10 cm peak to peak or more.
    case strong

    /// The wire name, e.g. `"moderate"`: the JSON member of the fraction.
    public var name: String { rawValue }

    /// The classes that are a verdict, `none` through `strong`.
    public static let graded: [TremorSeverity] = [.none, .slight, .mild, .moderate, .strong]

    /// Lower bounds of mild, moderate and strong, cm peak to peak (MDS-UPDRS 3.17).
    public static let amplitudeBounds = (mild: 1.0, moderate: 3.0, strong: 10.0)

    /// The tremor class of a peak-to-peak displacement that counts as tremor.
    /// - Parameter peakToPeak: cm, at least ``TremorConfiguration/minDisplacement``.
    /// - Returns: ``slight``, ``mild``, ``moderate`` or ``strong``.
    public static func grade(peakToPeak: Double) -> TremorSeverity {
        if peakToPeak >= amplitudeBounds.strong { return .strong }
        if peakToPeak >= amplitudeBounds.moderate { return .moderate }
        if peakToPeak >= amplitudeBounds.mild { return .mild }
        return .slight
    }

    /// Whether the class is a tremor (``slight`` through ``strong``).
    public var isTremor: Bool {
        switch self {
        case .slight, .mild, .moderate, .strong: true
        case .unknown, .none: false
        }
    }
}
