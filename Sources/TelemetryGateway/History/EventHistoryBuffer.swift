import TelemetryCore

/// The events waiting for the event history's store, oldest first, bounded in bytes: a pure
/// value the writer keeps behind a lock (docs/history.md).
///
/// - Each frame's kept events are one ``Entry``, admitted whole or not at all: when its bytes
///   would pass the bound, the entry (the newest) is refused and its events are counted as
///   dropped. What is buffered is older and already on its way; refusing the newest keeps the
///   buffer a plain queue.
/// - Batches are taken from the front and stay buffered until written (``removeFirst(_:)``), so
///   a failed write leaves them for the retry.
/// - An entry may hold its frame's journal record (``Entry/hold``); it is given back when the
///   entry is written, when a write of it fails (``releaseHolds(ofFirst:)``), or when it is refused.
struct EventHistoryBuffer {
    /// One frame's (or one tick's) events to keep.
    struct Entry {
        /// The kept messages, each below a device on a kept family's leaf.
        var messages: [OutboundMessage]
        /// The frame's arrival (the tick's time): the event time of events without a `date`.
        var receivedAt: Double
        /// What the entry counts against the bound.
        var bytes: Int
        /// The frame's journal record's countdown, while the entry holds it.
        var hold: ReleaseCountdown?

        /// An entry of `messages` received at `receivedAt`.
        init(messages: [OutboundMessage], receivedAt: Double, hold: ReleaseCountdown?) {
            self.messages = messages
            self.receivedAt = receivedAt
            self.hold = hold
            bytes = messages.reduce(0) { $0 + Self.bytes(of: $1) }
        }

        /// A message's payload and topic plus a fixed 64 bytes for the row's other fields and
        /// the array's slot.
        static func bytes(of message: OutboundMessage) -> Int { message.payload.count + message.topic.utf8.count + 64 }
    }

    /// The most bytes buffered at once.
    let maximumBytes: Int
    /// Bytes buffered now.
    private(set) var bytes = 0
    /// Events refused since the start.
    private(set) var dropped = 0
    private var entries: [Entry] = []
    /// Entries before this index are gone (removed lazily, so taking from the front is O(1)).
    private var head = 0

    /// An empty buffer of at most `maximumBytes`.
    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Entries buffered.
    var count: Int { entries.count - head }
    var isEmpty: Bool { count == 0 }

    /// Buffers `entry`, or refuses it when its bytes would pass the bound.
    /// - Returns: whether it was buffered; a refused entry's events are counted in ``dropped``
    ///   and the caller gives its hold back.
    mutating func append(_ entry: Entry) -> Bool {
        guard bytes + entry.bytes <= maximumBytes else {
            dropped += entry.messages.count
            return false
        }
        bytes += entry.bytes
        entries.append(entry)
        return true
    }

    /// The oldest entries, whole, up to `maximumEvents` events (at least one entry); empty when
    /// nothing is buffered. They stay buffered.
    func batch(maximumEvents: Int) -> ArraySlice<Entry> {
        var end = head
        var events = 0
        while end < entries.count, end == head || events + entries[end].messages.count <= maximumEvents {
            events += entries[end].messages.count
            end += 1
        }
        return entries[head..<end]
    }

    /// Removes the `n` oldest entries (a written batch).
    /// - Returns: the holds they still had, to give back.
    mutating func removeFirst(_ n: Int) -> [ReleaseCountdown] {
        let end = min(entries.count, head + n)
        var holds: [ReleaseCountdown] = []
        for index in head..<end {
            bytes -= entries[index].bytes
            if let hold = entries[index].hold { holds.append(hold) }
        }
        head = end
        // Compacted once the gone prefix is at least half the array.
        if head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return holds
    }

    /// Takes the holds of the `n` oldest entries, which stay buffered (a failed write: their
    /// records are let go so a store outage never pins the journal).
    mutating func releaseHolds(ofFirst n: Int) -> [ReleaseCountdown] {
        var holds: [ReleaseCountdown] = []
        for index in head..<min(entries.count, head + n) {
            if let hold = entries[index].hold { holds.append(hold) }
            entries[index].hold = nil
        }
        return holds
    }

    /// Empties the buffer (the store failed at shutdown); the events are counted in ``dropped``.
    /// Holds still buffered are not given back: those frames' records stay in the journal, and
    /// the next start replays them and derives their events again.
    mutating func dropAll() {
        dropped += entries[head...].reduce(0) { $0 + $1.messages.count }
        _ = removeFirst(count)
    }
}
