/// Grades resting tremor in historical accelerometer data (`recorder/accelerometer`, 50 Hz, g,
/// gravity included), one interval (a wall-clock minute) at a time, like Core Motion's
/// `CMMovementDisorderManager` does for its `CMTremorResult`s.
///
/// The method (`docs/tremor.md` gives the numbers behind each threshold):
/// 1. The interval is split into windows of ``TremorConfiguration/windowLength`` (2 s); each
///    sample goes to its slot of the 50 Hz grid the samples themselves follow (a second sample
///    in a slot is a duplicate and ignored). Windows that do not fit whole are not counted.
/// 2. A window with fewer than ``TremorConfiguration/minCoverage`` of its slots filled is
///    `unknown` (data missing).
/// 3. A window is `unknown` (voluntary movement) when the Hann-weighted mean acceleration vector
///    of one of its halves differs by more than ``TremorConfiguration/voluntaryThreshold`` from
///    the next half's, within the window or across its boundaries (the forearm turned, so
///    gravity's projection moved, or the wrist was pushed). Resting tremor is only defined at
///    rest, and Hann weighting keeps tremor of 3 Hz and more out of those means.
/// 4. Otherwise a least-squares line is removed per axis (gravity and slow drift), each axis is
///    Hann-windowed and its DFT evaluated directly on a grid over the band and a margin beyond
///    it (2.5–7.5 Hz in 0.02 Hz steps), and the powers are summed over the axes: the band power
///    of the acceleration **vector**. The magnitude |a| is not used: with gravity included it sees tremor along
///    gravity only to first order, and tremor across gravity only at twice its frequency and
///    with amplitude A²/4 (|g + a| ≈ 1 + a∥ + a⊥²/2).
/// 5. At the peak frequency f the acceleration amplitude is A = √(Σ_axes (2|X(f)|/Σw)²), the
///    displacement amplitude D = A·9.80665/(2πf)² m, and the peak-to-peak 2D is graded with the
///    MDS-UPDRS bands (``TremorSeverity/grade(peakToPeak:)``). When the peak lies in the margin
///    (movement below the band, physiological tremor above it), is below
///    ``TremorConfiguration/minDisplacement``, or is less than
///    ``TremorConfiguration/minProminence`` times the grid's mean (broadband movement, noise),
///    the window is `none`.
/// 6. The minute's fractions are the windows' shares; its dominant frequency is the peak of the
///    spectrum averaged over its tremor windows, its displacement their median peak-to-peak.
///
/// Pure: no clock, no I/O. Create one analyzer and reuse it: the sine and cosine tables are
/// computed once in ``init(configuration:)`` and shared by copies.
public struct TremorAnalyzer: Sendable {
    /// The settings.
    public let configuration: TremorConfiguration
    let tables: TremorSpectralTables
    /// The fewest samples a judged window holds.
    let requiredSamples: Int

    /// Creates an analyzer and its tables.
    /// - Parameter configuration: the settings; they must have no
    ///   ``TremorConfiguration/configurationProblem`` (checked: a precondition).
    public init(configuration: TremorConfiguration = TremorConfiguration()) {
        precondition(configuration.configurationProblem == nil, configuration.configurationProblem ?? "")
        self.configuration = configuration
        let sampleCount = configuration.samplesPerWindow
        tables = TremorSpectralTables(sampleCount: sampleCount, sampleRate: configuration.sampleRate, frequencies: configuration.frequencies)
        // At least 3 samples, so a line can be fitted and each half has one.
        requiredSamples = max(3, Int((configuration.minCoverage * Double(sampleCount) - 1e-9).rounded(.up)))
    }

    /// The tremor result of one interval.
    /// - Parameters:
    ///   - samples: the stored samples, sorted by `startDate` (unsorted input is sorted first);
    ///     samples outside the interval and samples with non-finite values are ignored.
    ///   - start: start of the interval, Unix epoch seconds (a minute boundary, usually).
    ///   - end: end of the interval (exclusive), Unix epoch seconds.
    /// - Returns: the fractions per class (summing to exactly 1), the dominant frequency and the
    ///   median displacement of the tremor windows, and counts. An interval shorter than a window
    ///   is entirely unknown.
    public func analyze(samples: [RecordedAccelerometerSample], from start: Double, to end: Double) -> TremorResult {
        let perWindow = tables.sampleCount
        let span = (end - start) / configuration.windowLength
        let windows = span.isFinite && span >= 1 ? Int(min(span + 1e-9, Double(Self.maximumWindows)).rounded(.down)) : 0
        var counts = [Int](repeating: 0, count: TremorSeverity.allCases.count)
        guard windows > 0 else {
            return TremorResult(startDate: start, endDate: end, windowCounts: counts)
        }
        let ordered = Self.isSortedByStartDate(samples) ? samples : samples.sorted { $0.startDate < $1.startDate }
        let voluntary = voluntaryWindows(ordered, start: start, windows: windows)

        var window = TremorWindow(tables: tables)
        var spectrumSum = [Double](repeating: 0, count: tables.frequencies.count)
        var displacements: [Double] = []
        var voluntaryCount = 0
        var sampleCount = 0
        var current = 0

        func judgeCurrent() {
            switch window.evaluate(tables: tables, configuration: configuration, requiredSamples: requiredSamples, voluntary: voluntary[current]) {
            case .missingData:
                counts[0] += 1
            case .voluntary:
                counts[0] += 1
                voluntaryCount += 1
            case .rest:
                counts[1] += 1
            case .tremor(let severity, _, let peakToPeak):
                counts[TremorSeverity.allCases.firstIndex(of: severity) ?? 0] += 1
                displacements.append(peakToPeak)
                for index in spectrumSum.indices { spectrumSum[index] += window.spectrum[index] }
            }
            window.reset()
            current += 1
        }

        var grid = TremorSlotGrid(start: start, rate: configuration.sampleRate, slotCount: windows * perWindow)
        for sample in ordered {
            let acceleration = sample.acceleration
            guard acceleration.x.isFinite, acceleration.y.isFinite, acceleration.z.isFinite, let slot = grid.slot(of: sample.startDate) else { continue }
            let index = slot / perWindow
            while current < index { judgeCurrent() }
            if window.insert(slot: slot - index * perWindow, acceleration) { sampleCount += 1 }
        }
        while current < windows { judgeCurrent() }

        var dominantFrequency: Double?
        let band = spectrumSum.indices.filter { configuration.isInBand(tables.frequencies[$0]) }
        if !displacements.isEmpty, let peak = band.max(by: { spectrumSum[$0] < spectrumSum[$1] }) {
            dominantFrequency = tables.frequencies[peak].rounded(toPlaces: 3)
        }
        return TremorResult(
            startDate: start, endDate: end, windowCounts: counts, voluntaryWindows: voluntaryCount, dominantFrequency: dominantFrequency,
            displacement: Self.median(displacements).map { $0.rounded(toPlaces: 3) }, sampleCount: sampleCount)
    }

    /// The share of its Hann weight a half window must hold for its mean to be compared.
    static let halfCompleteness = 0.97

    /// The most windows one call analyses (55 h of 2 s windows); a longer interval is cut.
    public static let maximumWindows = 100_000

    /// Which windows show voluntary movement: the Hann-weighted mean vector of every half window
    /// is compared with the next half's, within a window and across the boundary to its
    /// neighbours, so a movement that straddles two windows is caught in both. Halves holding
    /// less than ``halfCompleteness`` of their Hann weight are not compared.
    /// - Returns: one flag per window.
    func voluntaryWindows(_ samples: [RecordedAccelerometerSample], start: Double, windows: Int) -> [Bool] {
        let perWindow = tables.sampleCount
        let half = perWindow / 2
        var sums = [Vector3](repeating: .zero, count: 2 * windows)
        var weights = [Double](repeating: 0, count: 2 * windows)
        var grid = TremorSlotGrid(start: start, rate: configuration.sampleRate, slotCount: windows * perWindow)
        var previous = -1
        for sample in samples {
            let acceleration = sample.acceleration
            guard acceleration.x.isFinite, acceleration.y.isFinite, acceleration.z.isFinite, let slot = grid.slot(of: sample.startDate) else { continue }
            // A duplicate (same slot as the previous sample) counts once, as in the window.
            guard slot != previous else { continue }
            previous = slot
            let offset = slot % perWindow
            let isFirst = offset < half
            let weight = isFirst ? tables.firstHalf[offset] : tables.secondHalf[offset - half]
            let index = 2 * (slot / perWindow) + (isFirst ? 0 : 1)
            sums[index] = sums[index] + acceleration * weight
            weights[index] += weight
        }
        // A half missing more than 3 % of its weight is left out: a hole breaks the Hann weighting's
        // symmetry, and a tremor of amplitude A leaks up to about (missing weight)·A into the mean;
        // 3 % of a 7 g tremor (14 cm at 5 Hz) is 0.2 g.
        let fullWeight = (tables.firstHalf.reduce(0, +), tables.secondHalf.reduce(0, +))
        let enough = (0..<(2 * windows)).map { index in
            weights[index] >= Self.halfCompleteness * (index % 2 == 0 ? fullWeight.0 : fullWeight.1)
        }
        // change[i]: how far the mean moved from half i to half i + 1; nil when either is left out.
        let change: [Double?] = (0..<max(0, 2 * windows - 1)).map { index in
            guard enough[index], enough[index + 1], weights[index] > 0, weights[index + 1] > 0 else { return nil }
            return (sums[index + 1] * (1 / weights[index + 1]) - sums[index] * (1 / weights[index])).norm
        }
        let threshold = configuration.voluntaryThreshold
        func moved(_ index: Int) -> Bool {
            guard index >= 0, index < change.count, let distance = change[index] else { return false }
            // Overflowing values (inf − inf = NaN) count as movement too.
            return !(distance <= threshold)
        }
        return (0..<windows).map { window in moved(2 * window) || moved(2 * window - 1) || moved(2 * window + 1) }
    }

    /// Whether the samples are in non-decreasing `startDate` order.
    static func isSortedByStartDate(_ samples: [RecordedAccelerometerSample]) -> Bool {
        zip(samples, samples.dropFirst()).allSatisfy { $0.startDate <= $1.startDate }
    }

    /// The median, or nil for no values.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
