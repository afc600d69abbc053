/// The tremor of one interval (a wall-clock minute), as Core Motion's `CMTremorResult`: the
/// fractions of time with tremor unknown, none, slight, mild, moderate and strong, plus what the
/// gateway measured on the way.
///
/// The fractions are multiples of 2⁻¹⁶ apportioned from integer window counts by the largest
/// remainder, so they add up to exactly 1 in binary floating point, in any order, and each is a
/// finite decimal in JSON: a subscriber that sums them gets 1, not 0.9999999999999999.
public struct TremorResult: Sendable, Equatable {
    /// Start of the interval, Unix epoch seconds (inclusive).
    public var startDate: Double
    /// End of the interval, Unix epoch seconds (exclusive).
    public var endDate: Double
    /// Fraction of the interval without a verdict: data missing or voluntary movement.
    public var unknown: Double
    /// Fraction at rest without tremor.
    public var none: Double
    /// Fraction with slight tremor (< 1 cm peak to peak).
    public var slight: Double
    /// Fraction with mild tremor (1–3 cm).
    public var mild: Double
    /// Fraction with moderate tremor (3–10 cm).
    public var moderate: Double
    /// Fraction with strong tremor (≥ 10 cm).
    public var strong: Double
    /// The peak of the spectrum averaged over the tremor windows, Hz (rounded to 0.001); nil
    /// when no window shows tremor.
    public var dominantFrequency: Double?
    /// Median peak-to-peak displacement of the tremor windows, cm (rounded to 0.001); nil when
    /// no window shows tremor.
    public var displacement: Double?
    /// Windows per class, in ``TremorSeverity/allCases`` order (unknown first).
    public var windowCounts: [Int]
    /// Windows counted as unknown because the arm moved on purpose.
    public var voluntaryWindows: Int
    /// Samples analysed (inside the interval, one per 50 Hz slot).
    public var sampleCount: Int

    /// Windows the interval was split into.
    public var windowCount: Int { windowCounts.reduce(0, +) }
    /// Windows counted as unknown because data were missing.
    public var missingDataWindows: Int { windowCounts[0] - voluntaryWindows }
    /// Windows with tremor (slight through strong).
    public var tremorWindows: Int { windowCounts[2...].reduce(0, +) }

    /// Scale of the fractions: each is an integer number of 2⁻¹⁶.
    public static let fractionUnits = 65_536

    /// Creates a result from window counts; the fractions follow from them.
    /// - Parameters:
    ///   - startDate: start of the interval, Unix epoch seconds.
    ///   - endDate: end of the interval, Unix epoch seconds.
    ///   - windowCounts: windows per class in ``TremorSeverity/allCases`` order (6 values ≥ 0);
    ///     no window at all makes the whole interval unknown.
    ///   - voluntaryWindows: how many of the unknown windows were voluntary movement.
    ///   - dominantFrequency: Hz, nil without tremor.
    ///   - displacement: cm peak to peak, nil without tremor.
    ///   - sampleCount: samples analysed.
    public init(
        startDate: Double, endDate: Double, windowCounts: [Int], voluntaryWindows: Int = 0, dominantFrequency: Double? = nil,
        displacement: Double? = nil, sampleCount: Int = 0
    ) {
        precondition(windowCounts.count == TremorSeverity.allCases.count && windowCounts.allSatisfy { $0 >= 0 }, "six window counts ≥ 0")
        self.startDate = startDate
        self.endDate = endDate
        self.windowCounts = windowCounts
        self.voluntaryWindows = voluntaryWindows
        self.dominantFrequency = dominantFrequency
        self.displacement = displacement
        self.sampleCount = sampleCount
        let units = Self.apportion(windowCounts, units: Self.fractionUnits)
        let fractions = units.map { Double($0) / Double(Self.fractionUnits) }
        (unknown, none, slight, mild, moderate, strong) = (fractions[0], fractions[1], fractions[2], fractions[3], fractions[4], fractions[5])
    }

    /// The fraction of a class.
    public func fraction(_ severity: TremorSeverity) -> Double {
        switch severity {
        case .unknown: unknown
        case .none: none
        case .slight: slight
        case .mild: mild
        case .moderate: moderate
        case .strong: strong
        }
    }

    /// The graded class (none through strong) with the largest fraction, the more severe one on a
    /// tie; nil when the whole interval is unknown.
    public var predominantSeverity: TremorSeverity? {
        var best: TremorSeverity?
        for severity in TremorSeverity.graded where fraction(severity) > 0 && fraction(severity) >= best.map(fraction) ?? 0 {
            best = severity
        }
        return best
    }

    /// Splits `units` in proportion to `counts` by the largest remainder (Hamilton's method):
    /// integer arithmetic only, the parts add up to `units` exactly, a zero count gets nothing.
    /// - Returns: one part per count; all of `units` on the first when every count is 0.
    static func apportion(_ counts: [Int], units: Int) -> [Int] {
        let total = counts.reduce(0, +)
        guard total > 0 else { return counts.indices.map { $0 == 0 ? units : 0 } }
        var parts = counts.map { $0 * units / total }
        let remainders = counts.map { $0 * units % total }
        var left = units - parts.reduce(0, +)
        // Fewer than counts.count units are left; the largest remainders get one each (ties: first).
        for index in remainders.indices.sorted(by: { remainders[$0] > remainders[$1] || (remainders[$0] == remainders[$1] && $0 < $1) }) where left > 0 {
            parts[index] += 1
            left -= 1
        }
        return parts
    }
}
