/// Decides which shards to ask for an early snapshot write when the journal's ring fills up.
///
/// The ring frees space only from its tail, so a record held for its device's next snapshot
/// holds every record behind it. Past the high-water mark, the shards whose records sit at the
/// tail are asked to write their snapshots now instead of at their next
/// `state.snapshotInterval`: that releases the held records and moves the tail. Only those
/// shards are asked, at most one request per shard is outstanding, and a shard is asked again
/// no sooner than ``minimumSpacing`` after its last request, so a flood never turns into a storm
/// of snapshot writes on a shared store.
///
/// A pure state machine (the journal holds it under its lock): candidates and the time come in,
/// the shards to ask go out; the caller asks them.
package struct JournalPressure: Sendable {
    /// The fraction of the ring in use above which the tail's shards are asked to write.
    package static let highWaterFraction = 0.75
    /// The shortest time between two requests to one shard: at most ten early snapshot writes
    /// per second and shard.
    package static let minimumSpacing: Duration = .milliseconds(100)
    /// How many records from the tail are looked at for the shards holding them.
    package static let tailRecordsExamined = 256

    /// Bytes in use above which the tail's shards are asked to write.
    package let highWaterBytes: Int
    /// Shards asked and not done yet (``relieved(_:)``).
    private var outstanding: Set<Int> = []
    /// When each shard was last asked.
    private var lastAsked: [Int: SuspendingClock.Instant] = [:]

    /// Pressure for a ring of `capacity` bytes.
    package init(capacity: Int) {
        highWaterBytes = Int(Double(capacity) * Self.highWaterFraction)
    }

    /// Whether `usedBytes` (with the record about to be appended) is past the high-water mark.
    package func isPressed(usedBytes: Int) -> Bool { usedBytes > highWaterBytes }

    /// The shards among `tailShards` (the shards of the live records at the tail, oldest first,
    /// repeats allowed) to ask for a snapshot write at `now`; they count as asked.
    package mutating func shardsToAsk(tailShards: some Sequence<Int>, now: SuspendingClock.Instant) -> [Int] {
        var asked: [Int] = []
        for shard in tailShards where !outstanding.contains(shard) {
            if let last = lastAsked[shard], now - last < Self.minimumSpacing { continue }
            outstanding.insert(shard)
            lastAsked[shard] = now
            asked.append(shard)
        }
        return asked
    }

    /// `shard` handled its request (wrote its snapshots, or had nothing held): it may be asked again.
    package mutating func relieved(_ shard: Int) {
        outstanding.remove(shard)
    }
}
