/// One analysis window: its samples in their 50 Hz slots, and the verdict on them.
///
/// Holds scratch buffers sized once per ``TremorAnalyzer/analyze(samples:from:to:)`` call and
/// reused for every window, so the per-window work allocates nothing.
struct TremorWindow {
    /// What one window shows.
    enum Verdict: Equatable {
        /// Too few samples (below ``TremorConfiguration/minCoverage``), or values that overflow.
        case missingData
        /// The arm moved on purpose: half-window mean vectors differ by more than
        /// ``TremorConfiguration/voluntaryThreshold``.
        case voluntary
        /// At rest without tremor (`none`).
        case rest
        /// Tremor of a class, at a frequency (Hz), with a peak-to-peak displacement (cm).
        case tremor(TremorSeverity, frequency: Double, peakToPeak: Double)
    }

    /// Standard gravity, m/s² per g.
    static let standardGravity = 9.80665

    private var x: [Double]
    private var y: [Double]
    private var z: [Double]
    private var present: [Bool]
    /// Samples in the window.
    private(set) var count = 0
    /// The last evaluated window's amplitude spectrum squared, g², one value per grid frequency:
    /// 4·Σ_axes |X(f)|² / (Σw)², so a sinusoid of amplitude A along any axis peaks at A².
    private(set) var spectrum: [Double]

    /// Creates empty buffers for the tables' window and grid.
    init(tables: TremorSpectralTables) {
        x = [Double](repeating: 0, count: tables.sampleCount)
        y = x
        z = x
        present = [Bool](repeating: false, count: tables.sampleCount)
        spectrum = [Double](repeating: 0, count: tables.frequencies.count)
    }

    /// Empties the window.
    mutating func reset() {
        guard count > 0 else { return }
        for slot in present.indices { present[slot] = false }
        count = 0
    }

    /// Puts a sample in its slot; a second sample for an occupied slot (a duplicate) is ignored.
    /// - Returns: whether the sample was taken.
    mutating func insert(slot: Int, _ acceleration: Vector3) -> Bool {
        guard !present[slot] else { return false }
        present[slot] = true
        x[slot] = acceleration.x
        y[slot] = acceleration.y
        z[slot] = acceleration.z
        count += 1
        return true
    }

    /// Judges the window. Leaves its spectrum in ``spectrum`` when the verdict is tremor or rest.
    /// - Parameters:
    ///   - tables: the analyzer's tables.
    ///   - configuration: the thresholds.
    ///   - requiredSamples: the fewest samples a judged window holds.
    ///   - voluntary: whether the window shows voluntary movement.
    mutating func evaluate(tables: TremorSpectralTables, configuration: TremorConfiguration, requiredSamples: Int, voluntary: Bool) -> Verdict {
        guard count >= requiredSamples else { return .missingData }

        // 1. Voluntary movement, judged by the analyzer from the half-window means.
        guard !voluntary else { return .voluntary }

        // 2. Remove gravity and slow drift: a least-squares line per axis over the present slots
        //    (a plain mean would leave a slow orientation drift's ramp to leak into the band).
        detrend()

        // 3. Hann-windowed DFT per axis on the grid; power summed over the axes, i.e. the band
        //    power of the acceleration vector, whatever its direction relative to gravity.
        var weightSum = 0.0
        for slot in 0..<tables.sampleCount where present[slot] { weightSum += tables.hann[slot] }
        let scale = 4 / (weightSum * weightSum)
        let (peakIndex, peak, mean) = computeSpectrum(tables: tables, scale: scale)
        guard peak.isFinite, mean.isFinite else { return .missingData }

        // 4. A peak beyond the band's edges is movement below it or physiological tremor above.
        let frequency = tables.frequencies[peakIndex]
        guard configuration.isInBand(frequency) else { return .rest }

        // 5. Amplitude at the peak → displacement: D = A·g₀/(2πf)², peak to peak 2D, in cm.
        let omega = 2 * Double.pi * frequency
        let peakToPeak = 2 * peak.squareRoot() * Self.standardGravity / (omega * omega) * 100
        guard peakToPeak >= configuration.minDisplacement, peak >= configuration.minProminence * mean else { return .rest }
        return .tremor(TremorSeverity.grade(peakToPeak: peakToPeak), frequency: frequency, peakToPeak: peakToPeak)
    }

    // MARK: Steps

    /// Replaces each axis by its residual from a least-squares line over the present slots;
    /// missing slots become 0, so they add nothing to the DFT.
    private mutating func detrend() {
        var slotSum = 0.0
        for slot in present.indices where present[slot] { slotSum += Double(slot) }
        let slotMean = slotSum / Double(count)
        var spread = 0.0
        for slot in present.indices where present[slot] {
            let offset = Double(slot) - slotMean
            spread += offset * offset
        }
        Self.detrend(&x, present: present, slotMean: slotMean, spread: spread, count: count)
        Self.detrend(&y, present: present, slotMean: slotMean, spread: spread, count: count)
        Self.detrend(&z, present: present, slotMean: slotMean, spread: spread, count: count)
    }

    private static func detrend(_ values: inout [Double], present: [Bool], slotMean: Double, spread: Double, count: Int) {
        var sum = 0.0
        var moment = 0.0
        for slot in values.indices where present[slot] {
            sum += values[slot]
            moment += (Double(slot) - slotMean) * values[slot]
        }
        let mean = sum / Double(count)
        let slope = spread > 0 ? moment / spread : 0
        for slot in values.indices {
            values[slot] = present[slot] ? values[slot] - mean - slope * (Double(slot) - slotMean) : 0
        }
    }

    /// Fills ``spectrum``; returns the peak's index, the peak and the mean over the grid.
    private mutating func computeSpectrum(tables: TremorSpectralTables, scale: Double) -> (index: Int, peak: Double, mean: Double) {
        let length = tables.sampleCount
        var peakIndex = 0
        var peak = -Double.infinity
        var total = 0.0
        x.withUnsafeBufferPointer { x in
            y.withUnsafeBufferPointer { y in
                z.withUnsafeBufferPointer { z in
                    tables.weightedCosine.withUnsafeBufferPointer { cosine in
                        tables.weightedSine.withUnsafeBufferPointer { sine in
                            spectrum.withUnsafeMutableBufferPointer { spectrum in
                                for row in 0..<spectrum.count {
                                    let base = row * length
                                    var xRe = 0.0
                                    var xIm = 0.0
                                    var yRe = 0.0
                                    var yIm = 0.0
                                    var zRe = 0.0
                                    var zIm = 0.0
                                    for slot in 0..<length {
                                        let c = cosine[base + slot]
                                        let s = sine[base + slot]
                                        xRe += x[slot] * c
                                        xIm += x[slot] * s
                                        yRe += y[slot] * c
                                        yIm += y[slot] * s
                                        zRe += z[slot] * c
                                        zIm += z[slot] * s
                                    }
                                    let power = (xRe * xRe + xIm * xIm + yRe * yRe + yIm * yIm + zRe * zRe + zIm * zIm) * scale
                                    spectrum[row] = power
                                    total += power
                                    // `>` keeps the lowest frequency among equal peaks; NaN never wins.
                                    if power > peak {
                                        peak = power
                                        peakIndex = row
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if !total.isFinite { return (peakIndex, .nan, .nan) }
        return (peakIndex, peak, total / Double(tables.frequencies.count))
    }
}
