/// The rotation rate about gravity of a device's last seconds, 8 bytes a sample.
///
/// A ``SampleRing`` of packed points: the rate as a `Float` (7 significant digits; the swing
/// measures rates to 10⁻⁴ rad/s at most) and the timestamp as an `Int32` count of ticks of
/// 2⁻²⁴ s (≈ 60 ns) after a per-ring base tick kept as an `Int64`. A timestamp is rounded to the
/// nearest tick once, on arrival (≤ 30 ns, whatever the uptime: the base, not the offset, grows
/// with it) and reads back as exactly `tick × 2⁻²⁴`, so every reader sees the same value.
/// The offsets reach `Int32.max` after 128 s; the ring then moves its base to its oldest
/// sample (re-anchoring), shifting every offset by a whole number of ticks, so no timestamp
/// changes. Samples more than 128 s older than the newest (before a long pause) are dropped
/// then: nothing measures across such a gap.
///
/// Positions and absolute indices are those of ``SampleRing``.
public struct RotationRing: Sendable {
    /// Ticks per second: timestamps are kept to 2⁻²⁴ s.
    public static let ticksPerSecond: Double = 16_777_216

    /// One stored sample.
    private struct Packed: Sendable {
        /// Ticks after ``RotationRing/baseTick``.
        var offset: Int32
        var rate: Float
    }

    private var packed: SampleRing<Packed>
    /// The tick offsets count from; re-anchored to the oldest sample when they would overflow.
    public private(set) var baseTick: Int64 = 0

    /// Creates an empty ring of `capacity` samples.
    public init(capacity: Int) {
        packed = SampleRing(capacity: capacity, filler: Packed(offset: 0, rate: 0))
    }

    /// The most samples held.
    public var capacity: Int { packed.capacity }
    /// The number of samples held.
    public var count: Int { packed.count }
    /// Whether the ring holds no sample.
    public var isEmpty: Bool { packed.isEmpty }
    /// The absolute index of the oldest sample held.
    public var startIndex: Int { packed.startIndex }
    /// The absolute index the next appended sample gets.
    public var endIndex: Int { packed.endIndex }

    /// The tick of `timestamp`, or nil when it has none (not finite, or beyond ≈ 8,700 years).
    public static func tick(of timestamp: Double) -> Int64? {
        Int64(exactly: (timestamp * ticksPerSecond).rounded())
    }

    /// The timestamp of `tick`, exact.
    public static func timestamp(ofTick tick: Int64) -> Double {
        Double(tick) / ticksPerSecond
    }

    /// Appends a sample when it is newer, by at least one tick, than the newest.
    /// - Parameters:
    ///   - timestamp: seconds since boot.
    ///   - rate: the rotation rate about gravity, rad/s.
    /// - Returns: false when the sample was not appended (not newer, or no tick).
    public mutating func append(timestamp: Double, rate: Double) -> Bool {
        guard let tick = Self.tick(of: timestamp) else { return false }
        if let last = packed.last {
            guard tick > baseTick + Int64(last.offset) else { return false }
        } else {
            baseTick = tick
        }
        if tick - baseTick > Int64(Int32.max) { reanchor(before: tick) }
        packed.append(Packed(offset: Int32(tick - baseTick), rate: Float(rate)))
        return true
    }

    /// Forgets every sample; absolute indices restart at 0.
    public mutating func removeAll() {
        packed.removeAll()
        baseTick = 0
    }

    /// The sample at `position`, 0 being the oldest.
    public subscript(position: Int) -> RotationPoint {
        point(packed[position])
    }

    /// The sample with absolute index `index` (in `startIndex..<endIndex`).
    public subscript(absolute index: Int) -> RotationPoint {
        point(packed[absolute: index])
    }

    /// The oldest sample, if any.
    public var first: RotationPoint? { packed.first.map(point) }

    /// The newest sample, if any.
    public var last: RotationPoint? { packed.last.map(point) }

    /// The absolute index of the newest sample at or before `time`, if any.
    public func lastIndex(atOrBefore time: Double) -> Int? {
        var low = 0
        var high = count  // first position with timestamp > time
        while low < high {
            let middle = (low + high) / 2
            if self[middle].timestamp <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : startIndex + low - 1
    }

    private func point(_ sample: Packed) -> RotationPoint {
        RotationPoint(timestamp: Self.timestamp(ofTick: baseTick + Int64(sample.offset)), rate: Double(sample.rate))
    }

    /// Moves the base to the oldest sample that stays within `Int32.max` ticks of `tick`,
    /// dropping the older ones, and shifts the remaining offsets.
    private mutating func reanchor(before tick: Int64) {
        while let oldest = packed.first, tick - (baseTick + Int64(oldest.offset)) > Int64(Int32.max) { packed.removeFirst() }
        guard let oldest = packed.first else {
            baseTick = tick
            return
        }
        let shift = oldest.offset
        baseTick += Int64(shift)
        for position in 0..<packed.count { packed[position].offset -= shift }
    }
}
