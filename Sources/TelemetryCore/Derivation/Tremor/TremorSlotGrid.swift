/// Places samples in the slots of the 50 Hz grid they were recorded on, counted from an
/// interval's start.
///
/// The grid's phase is taken from the first sample and taken again when a sample lies more than
/// a third of a period off it (e.g. a new recording batch). Rounding against the interval's own
/// grid instead would put samples recorded half a period off it into neighbouring slots by
/// chance: 20 ms errors that, for a 3 Hz tremor of 2.5 g, are 0.5 g of apparent noise.
struct TremorSlotGrid {
    private let start: Double
    private let rate: Double
    private let slotCount: Double
    private var phase: Double?

    /// Creates a grid of `slotCount` slots of 1/`rate` s from `start`.
    init(start: Double, rate: Double, slotCount: Int) {
        self.start = start
        self.rate = rate
        self.slotCount = Double(slotCount)
    }

    /// The slot of a sample, or nil when it lies outside the grid (or its date is not finite).
    /// Call in sample order: the phase follows the samples.
    mutating func slot(of date: Double) -> Int? {
        let scaled = (date - start) * rate
        guard scaled.isFinite else { return nil }
        let offset: Double
        if let phase, abs(scaled - phase - (scaled - phase).rounded()) <= 0.35 {
            offset = phase
        } else {
            offset = scaled - scaled.rounded(.down)
            phase = offset
        }
        let position = (scaled - offset).rounded()
        guard position >= 0, position < slotCount else { return nil }
        return Int(position)
    }
}
