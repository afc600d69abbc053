import TelemetryCore

/// What an instance keeps, per device it does not process, for the moment it takes the device
/// over (partitioned mode): the owner's latest snapshot (JSON, as published on
/// `gateway/cluster/state/{id}`) and the **trail**, the frames that can change a snapshot
/// received after it. A new owner restores the snapshot and replays the trail, so its state is
/// the previous owner's up to the frame it cut the stream at (docs/scale-out.md).
///
/// A pure value (time arrives with the frames); bounded in bytes, the least recently updated
/// device dropped first.
struct SnapshotCache: Sendable {
    /// A device's kept state.
    struct Entry: Sendable {
        /// The snapshot's JSON; nil while only trail frames are known.
        var snapshot: [UInt8]?
        /// The snapshot's `lastSeen`: when its owner received the last frame it covers.
        var lastSeen = -Double.infinity
        /// Frames that can change a snapshot, received after `lastSeen`, in arrival order.
        var trail: [InboundFrame] = []
        var bytes = 0
        var touched: UInt64 = 0
    }

    /// What a gain takes: the snapshot and the frames after it.
    struct Taken: Sendable {
        var snapshot: [UInt8]?
        var lastSeen: Double
        var trail: [InboundFrame]
    }

    let limit: Int
    /// Seconds of trail kept before a device's newest frame: a snapshot covering older frames
    /// has arrived by then unless the owner is frozen (`cluster.expiry`) or its snapshots stopped.
    let horizon: Double
    private var entries: [String: Entry] = [:]
    /// Devices by last update (stale records skipped), for dropping the least recent.
    private var order: [(key: String, touched: UInt64)] = []
    private var orderHead = 0
    private var clock: UInt64 = 0
    private(set) var bytes = 0
    /// Devices dropped for the bound since the last call to ``takeDropped()``.
    private var dropped = 0

    init(limit: Int, horizon: Double) {
        self.limit = max(1, limit)
        self.horizon = horizon
    }

    /// Devices with kept state.
    var count: Int { entries.count }

    /// Keeps a snapshot if it is newer than the kept one; drops the trail it covers.
    /// - Returns: whether it was kept.
    @discardableResult
    mutating func keepSnapshot(_ json: [UInt8], lastSeen: Double, key: String) -> Bool {
        var entry = entries[key] ?? Entry()
        guard entry.snapshot == nil || lastSeen >= entry.lastSeen else { return false }
        entry.snapshot = json
        entry.lastSeen = lastSeen
        entry.trail.removeAll { $0.receivedAt <= lastSeen }
        store(&entry, key: key)
        return true
    }

    /// Forgets a device's snapshot (its retained topic was cleared).
    mutating func clear(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        bytes -= entry.bytes
    }

    /// Appends a frame that can change a snapshot to the device's trail, dropping trail frames
    /// older than ``horizon`` before it.
    mutating func append(_ frame: InboundFrame, key: String) {
        var entry = entries[key] ?? Entry()
        let cutoff = frame.receivedAt - horizon
        if let first = entry.trail.first, first.receivedAt < cutoff { entry.trail.removeAll { $0.receivedAt < cutoff } }
        entry.trail.append(frame)
        store(&entry, key: key)
    }

    /// The device's snapshot and the trail frames after it; the trail is emptied (the device is
    /// processed here from now on), the snapshot stays for a later gain.
    mutating func take(_ key: String) -> Taken? {
        guard var entry = entries[key] else { return nil }
        let taken = Taken(snapshot: entry.snapshot, lastSeen: entry.lastSeen, trail: entry.trail.filter { $0.receivedAt > entry.lastSeen })
        entry.trail = []
        if entry.snapshot == nil {
            clear(key)
        } else {
            store(&entry, key: key)
        }
        return taken
    }

    /// Devices dropped for the byte bound since the last call.
    mutating func takeDropped() -> Int {
        defer { dropped = 0 }
        return dropped
    }

    private mutating func store(_ entry: inout Entry, key: String) {
        let size = (entry.snapshot?.count ?? 0) + key.utf8.count + entry.trail.reduce(0) { $0 + $1.payload.count + $1.topic.utf8.count + 64 }
        bytes += size - (entries[key]?.bytes ?? 0)
        clock += 1
        entry.bytes = size
        entry.touched = clock
        entries[key] = entry
        order.append((key, clock))
        evict(keeping: key)
    }

    private mutating func evict(keeping key: String) {
        while bytes > limit, orderHead < order.count {
            let (oldest, touched) = order[orderHead]
            orderHead += 1
            // A stale record (the device was updated since) or the device just stored.
            guard oldest != key, let entry = entries[oldest], entry.touched == touched else { continue }
            clear(oldest)
            dropped += 1
        }
        // Compact once stale records dominate.
        if orderHead > 1024, orderHead * 2 > order.count {
            order.removeFirst(orderHead)
            orderHead = 0
        }
        if order.count - orderHead > 4 * entries.count + 1024 {
            order = entries.map { ($0.key, $0.value.touched) }.sorted { $0.touched < $1.touched }
            orderHead = 0
        }
    }
}
