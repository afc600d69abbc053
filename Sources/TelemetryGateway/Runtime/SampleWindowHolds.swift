import CoreMetrics
import TelemetryCore

/// Clustered: the journal records of a shard's batched frames, kept for as long as their samples
/// may still count in a swing (`derivation.swing.alignmentWindow`), so that a restart on the same
/// disk replays them into the sample windows, which no snapshot holds (docs/reliability.md).
///
/// A record's hold starts at the tick after its frame was applied and ends at the first tick past
/// `duration`; a shutdown ends them all, and so does journal pressure (counted).
struct SampleWindowHolds {
    /// How long a record stays after the tick that starts its hold.
    let duration: Duration
    /// Records let go early because the journal passed its high-water mark.
    private let releasedEarly: Counter
    /// Records of frames applied since the last tick.
    private var sinceTick: [ReleaseCountdown] = []
    /// Records whose hold began, oldest first, with when each tick's lot goes.
    private var lots: [(until: SuspendingClock.Instant, records: [ReleaseCountdown])] = []

    init(duration: Duration, releasedEarly: Counter) {
        self.duration = duration
        self.releasedEarly = releasedEarly
    }

    /// Holds the record of a frame routed as `command` if it is a batched frame (its effect lives
    /// only in sample windows): one more part of its countdown.
    mutating func hold(_ record: ReleaseCountdown, of command: RoutedFrame.Command) {
        guard case .frame(.device(_, let stream)) = command, !DeviceSnapshot.canChange(from: stream) else { return }
        // Before the frame's own part is done (the caller's last), so the count is not 0.
        record.addPart()
        sinceTick.append(record)
    }

    /// A tick at `instant`: starts the hold of the records applied since the last one and lets go
    /// of those whose hold is over; at shutdown (`instant` nil) of every one.
    mutating func tick(at instant: SuspendingClock.Instant?) {
        guard let instant else {
            releaseAll()
            return
        }
        if !sinceTick.isEmpty {
            lots.append((until: instant + duration, records: sinceTick))
            sinceTick.removeAll(keepingCapacity: true)
        }
        let due = lots.prefix { $0.until <= instant }.count
        for lot in lots.prefix(due) { lot.records.forEach { $0.partDone() } }
        lots.removeFirst(due)
    }

    /// The journal passed its high-water mark: lets go of every held record, counted.
    /// - Returns: whether there was one (then that is the relief: no snapshot write with it).
    mutating func relieve() -> Bool {
        let released = releaseAll()
        releasedEarly.increment(by: released)
        return released > 0
    }

    /// Lets go of every held record; returns how many.
    @discardableResult
    private mutating func releaseAll() -> Int {
        let records = sinceTick + lots.flatMap(\.records)
        records.forEach { $0.partDone() }
        sinceTick.removeAll(keepingCapacity: true)
        lots.removeAll(keepingCapacity: true)
        return records.count
    }
}
