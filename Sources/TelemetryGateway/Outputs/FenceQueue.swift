import Ownership
import TelemetryCore

/// What waits for the output ledger, as a value (``FencedOutputs`` acts on it under a lock):
/// the outputs handed over in order, each with its ledger key, and the outputs of warming
/// partitions kept for their hand-over's cut. Bounded in bytes: the queue by making callers wait,
/// the warm-up outputs by letting the oldest go (they are the ones the old holder surely published).
struct FenceQueue {
    /// One hand-over's outputs (a frame's, a tick's), in the order they were derived.
    struct Entry {
        var messages: [OutboundMessage]
        /// Each message's key in the ledger; nil for one the ledger does not fence (no device,
        /// not stamped with an epoch: the gateway's own topics).
        var keys: [OutputKey?]
        var countdown: ReleaseCountdown?
        var bytes: Int
    }

    let partitions: OwnershipPartitions
    /// The most bytes the warm-up outputs take; past it the oldest go (counted by the caller).
    let warmedLimit: Int
    private(set) var entries: [Entry] = []
    private(set) var queuedBytes = 0
    /// The number the next queued entry's keys get (``OutputKey/queueEntry``).
    private var nextEntry: Int64 = 1
    /// Warm-up outputs in arrival order, with their partition.
    private var warmedOutputs: [(partition: Int, message: OutboundMessage)] = []
    /// How many of ``warmedOutputs`` each partition has: every keyed output appended asks, so
    /// it must not scan the list (changes of role, rare, do).
    private var warmedCounts: [Int: Int] = [:]
    private(set) var warmedBytes = 0
    /// Partitions gained here with their epochs, and those warming up, as the workers reported
    /// them (each worker reports each change; the first report counts).
    private var owned: [Int: Int64] = [:]
    private var warming: Set<Int> = []

    init(partitions: OwnershipPartitions, warmedLimit: Int) {
        self.partitions = partitions
        self.warmedLimit = warmedLimit
    }

    /// An entry of `messages`, each keyed by its device's partition, its `epoch` stamp and its
    /// payload's `eventId` (empty for a message without one, and for one at QoS 0: at most once
    /// by contract, fenced by the lease only). Needs no queue: callers key outside their lock.
    static func entry(_ messages: [OutboundMessage], countdown: ReleaseCountdown?, partitions: OwnershipPartitions) -> Entry {
        Entry(
            messages: messages, keys: messages.map { key(of: $0, partitions: partitions) }, countdown: countdown,
            bytes: messages.reduce(0) { $0 + bytes(of: $1) })
    }

    static func key(of message: OutboundMessage, partitions: OwnershipPartitions) -> OutputKey? {
        guard let device = message.device, let stamp = message.userProperties.last(where: { $0.name == "epoch" }), let epoch = Int64(stamp.value) else {
            return nil
        }
        let eventID = message.qos == .atMostOnce ? "" : HistoryEventFields(scanning: message.payload).eventId ?? ""
        return OutputKey(topic: message.topic, eventID: eventID, partition: partitions.partition(of: device.rawValue), epoch: epoch)
    }

    func entry(_ messages: [OutboundMessage], countdown: ReleaseCountdown?) -> Entry { Self.entry(messages, countdown: countdown, partitions: partitions) }

    func key(of message: OutboundMessage) -> OutputKey? { Self.key(of: message, partitions: partitions) }

    static func bytes(of message: OutboundMessage) -> Int { message.payload.count + message.topic.utf8.count + 64 }

    /// Appends `entry`, behind the warm-up outputs kept for the partitions it names (they are
    /// older than any output derived as their holder), stamped by `stamp` under its epoch.
    mutating func append(_ entry: Entry, stamp: (_ messages: [OutboundMessage], _ epoch: Int64) -> [OutboundMessage]) {
        for key in entry.keys {
            guard let key else { continue }
            releaseWarmed(of: key.partition, epoch: key.epoch, stamp: stamp)
        }
        enqueue(entry)
    }

    /// Queues `entry` under the next entry number.
    private mutating func enqueue(_ entry: Entry) {
        var entry = entry
        for index in entry.keys.indices { entry.keys[index]?.queueEntry = nextEntry }
        nextEntry += 1
        entries.append(entry)
        queuedBytes += entry.bytes
    }

    /// Keeps a warming partition's outputs, or queues them at once when the partition is already
    /// gained here (a frame that arrived warming, processed after the change).
    /// - Returns: how many kept outputs were let go to stay within ``warmedLimit``.
    mutating func warmed(_ messages: [OutboundMessage], stamp: (_ messages: [OutboundMessage], _ epoch: Int64) -> [OutboundMessage]) -> Int {
        var byPartition: [Int: [OutboundMessage]] = [:]
        // At most once (head pose): a stale one published late is worse than none.
        for message in messages where message.qos != .atMostOnce {
            guard let device = message.device else { continue }
            let partition = partitions.partition(of: device.rawValue)
            if owned[partition] != nil {
                byPartition[partition, default: []].append(message)
            } else if warming.contains(partition) {
                warmedOutputs.append((partition, message))
                warmedCounts[partition, default: 0] += 1
                warmedBytes += Self.bytes(of: message)
            }
        }
        for (partition, messages) in byPartition.sorted(by: { $0.key < $1.key }) {
            if let epoch = owned[partition] { append(entry(stamp(messages, epoch), countdown: nil), stamp: stamp) }
        }
        // The oldest go, in one removal.
        var dropped = 0
        while warmedBytes > warmedLimit, dropped < warmedOutputs.count {
            let (partition, message) = warmedOutputs[dropped]
            warmedBytes -= Self.bytes(of: message)
            warmedCounts[partition] = warmedCounts[partition].flatMap { $0 > 1 ? $0 - 1 : nil }
            dropped += 1
        }
        warmedOutputs.removeFirst(dropped)
        return dropped
    }

    /// A partition changed role here: warming, its outputs are kept from now on; gained, those
    /// kept are queued under its epoch; lost, they are let go. Reported by every worker, each in
    /// its own queue's order, so a later report of a change already applied changes nothing (a
    /// worker's late warming report must not drop what other workers kept meanwhile).
    mutating func changed(_ change: OwnershipChange, stamp: (_ messages: [OutboundMessage], _ epoch: Int64) -> [OutboundMessage]) {
        switch change {
        case .warming(let partition):
            guard owned[partition] == nil else { return }
            warming.insert(partition)
        case .gained(let partition, let epoch):
            guard owned[partition] != epoch else { return }
            owned[partition] = epoch
            warming.remove(partition)
            releaseWarmed(of: partition, epoch: epoch, stamp: stamp)
        case .lost(let partition):
            owned[partition] = nil
            warming.remove(partition)
            forgetWarmed(of: partition)
        }
    }

    /// The oldest entries, up to `maximumKeys` keyed outputs (at least one entry); they stay
    /// queued until ``removeFirst(_:)``.
    func batch(maximumKeys: Int) -> ArraySlice<Entry> {
        var count = 0
        var keys = 0
        for entry in entries {
            keys += entry.keys.count
            if count > 0 && keys > maximumKeys { break }
            count += 1
        }
        return entries.prefix(count)
    }

    /// The `count` oldest entries were delivered.
    mutating func removeFirst(_ count: Int) {
        queuedBytes -= entries.prefix(count).reduce(0) { $0 + $1.bytes }
        entries.removeFirst(count)
    }

    private mutating func releaseWarmed(of partition: Int, epoch: Int64, stamp: (_ messages: [OutboundMessage], _ epoch: Int64) -> [OutboundMessage]) {
        guard warmedCounts[partition] != nil else { return }
        let messages = warmedOutputs.filter { $0.partition == partition }.map(\.message)
        forgetWarmed(of: partition)
        enqueue(entry(stamp(messages, epoch), countdown: nil))
    }

    private mutating func forgetWarmed(of partition: Int) {
        guard warmedCounts.removeValue(forKey: partition) != nil else { return }
        warmedBytes -= warmedOutputs.filter { $0.partition == partition }.reduce(0) { $0 + Self.bytes(of: $1.message) }
        warmedOutputs.removeAll { $0.partition == partition }
    }
}
