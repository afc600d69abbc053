import TelemetrySimulation

/// Seeded faults to inject while replaying a capture (`wearable-sim replay --drop … --seed …`).
///
/// Applied to the live frames (never to the ones that came from the broker's retained store),
/// in this order, each decision drawn from one ``SplitMix64`` seeded with ``seed``:
/// 1. **cut-at** S: frames recorded after S seconds are not sent (the session is cut off).
/// 2. **drop** P: each frame is left out with probability P.
/// 3. **duplicate** P: each remaining frame is sent twice, the copy right after the original.
/// 4. **reorder** P: each remaining original frame, with probability P, swaps places with the
///    next original frame of the same topic (the later frame goes first).
/// 5. **delay** MS: every frame is sent up to MS milliseconds late (uniform), and frames go out
///    in the order of their delayed times, which can reorder them further.
///
/// The same seed, capture and plan always give the same ``ReplaySchedule``.
public struct FaultPlan: Sendable, Equatable {
    /// Seeds every random decision.
    public var seed: UInt64
    /// Probability of leaving a frame out, 0…1.
    public var drop: Double
    /// Probability of sending a frame twice, 0…1.
    public var duplicate: Double
    /// Probability of swapping a frame with the next one of its topic, 0…1.
    public var reorder: Double
    /// Largest extra delay per frame, milliseconds.
    public var delay: Double
    /// Seconds of the recording after which nothing is sent; nil sends everything.
    public var cutAt: Double?

    /// Creates a plan; the defaults inject nothing.
    public init(seed: UInt64 = 1, drop: Double = 0, duplicate: Double = 0, reorder: Double = 0, delay: Double = 0, cutAt: Double? = nil) {
        self.seed = seed
        self.drop = drop
        self.duplicate = duplicate
        self.reorder = reorder
        self.delay = delay
        self.cutAt = cutAt
    }

    /// A plan that injects nothing.
    public static let none = FaultPlan()

    /// Says what is wrong with the plan, or nil.
    public var problem: String? {
        for (name, value) in [("drop", drop), ("duplicate", duplicate), ("reorder", reorder)] where !(0...1).contains(value) {
            return "--\(name) must be a probability from 0 to 1, not \(value)"
        }
        if !(delay >= 0 && delay.isFinite) { return "--delay must be a non-negative number of milliseconds" }
        if let cutAt, !(cutAt >= 0 && cutAt.isFinite) { return "--cut-at must be a non-negative number of seconds" }
        return nil
    }

    /// The frames to send and when, with a report of what was injected.
    /// - Parameter frames: a capture's frames, in arrival order.
    public func schedule(_ frames: [CapturedFrame]) -> ReplaySchedule {
        var random = SplitMix64(seed: seed)
        var report = InjectionReport()
        report.captured = frames.count
        let stored = frames.filter(\.stored)
        report.stored = stored.count
        var live = frames.filter { !$0.stored }
        if let cutAt {
            let kept = live.filter { $0.time <= cutAt }
            report.cut = live.count - kept.count
            live = kept
        }
        // Each entry keeps its original slot time; swaps exchange frames, not times.
        var entries: [ReplaySchedule.Entry] = []
        for frame in live {
            if drop > 0, random.nextUnitInterval() < drop {
                report.dropped += 1
                continue
            }
            entries.append(.init(time: frame.time, frame: frame, isCopy: false))
            if duplicate > 0, random.nextUnitInterval() < duplicate {
                report.duplicated += 1
                entries.append(.init(time: frame.time, frame: frame, isCopy: true))
            }
        }
        if reorder > 0 {
            var swapped = Set<Int>()
            for index in entries.indices where !entries[index].isCopy && !swapped.contains(index) {
                guard random.nextUnitInterval() < reorder else { continue }
                let topic = entries[index].frame.topic
                guard
                    let next = entries[(index + 1)...].indices.first(where: {
                        !entries[$0].isCopy && !swapped.contains($0) && entries[$0].frame.topic == topic
                    })
                else { continue }
                // A copy that followed either frame moves with it, so "copy right after the
                // original" still holds.
                let (first, second) = (entries[index].frame, entries[next].frame)
                for position in entries.indices where entries[position].frame == first || entries[position].frame == second {
                    entries[position].frame = entries[position].frame == first ? second : first
                }
                swapped.formUnion([index, next])
                report.reordered += 1
            }
        }
        if delay > 0 {
            for index in entries.indices {
                let extra = random.nextUnitInterval() * delay / 1000
                if extra > 0 { report.delayed += 1 }
                entries[index].time += extra
            }
            // Stable: equal times keep their order (a copy stays after its original).
            entries = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        }
        report.published = stored.count + entries.count
        return ReplaySchedule(stored: stored, entries: entries, report: report)
    }
}
