import CoreMetrics
import Locking
import MQTTTransport
import Ownership
import TelemetryCore

/// The latest retained message of every topic the gateway publishes retained (availability,
/// connection, depth state, headphone connection, …), so that all of it can be published again
/// when the broker has lost it (restarted without persistence).
///
/// Bounded in bytes (`retained.cacheBytes`): past the bound the oldest-written topics are dropped
/// and counted; they come back with the device's next change.
///
/// A device's messages travel with its snapshot (``DeviceSnapshot/retainedOutputs``): whoever
/// restores the device next (this gateway after a restart, the next holder of its partition)
/// takes them back with ``restore(_:)``, so it can announce them again although it never
/// published them itself. What is re-announced passes the ownership port first: only the
/// devices this instance publishes for now.
final class RetainedStateCache: Sendable {
    /// One topic's message, out of line so that the hash table's empty slots (up to 5/8 of it)
    /// cost a pointer each rather than a whole message.
    private final class Entry: Sendable {
        let message: OutboundMessage
        let order: UInt64

        init(message: OutboundMessage, order: UInt64) {
            self.message = message
            self.order = order
        }
    }

    private struct State {
        var messages: [String: Entry] = [:]
        /// The topics of each device's messages, to forget a device in O(its topics).
        var topics: [DeviceID: Set<String>] = [:]
        /// The devices with messages, by ownership partition, to forget a lost partition's
        /// devices in O(its devices).
        var devices: [Int: Set<DeviceID>] = [:]
        var bytes = 0
        var nextOrder: UInt64 = 0
        var evicted: UInt64 = 0
    }

    /// The bound in bytes (topic plus payload).
    let limit: Int
    private let state = LockedState(State())
    /// Counts the topics dropped to stay within the bound.
    private let evictions: Counter?
    /// The split the ownership leases (the index of ``forget(partition:where:)``).
    private let partitions: OwnershipPartitions

    /// Creates a cache bounded to `limit` bytes; `evictions` counts what the bound drops.
    init(limit: Int, partitions: OwnershipPartitions = OwnershipPartitions(), evictions: Counter? = nil) {
        self.limit = limit
        self.partitions = partitions
        self.evictions = evictions
    }

    /// Remembers a retained message (an empty payload deletes the topic's entry, as it deletes
    /// the broker's retained message). Non-retained messages are ignored.
    func record(_ message: OutboundMessage) {
        guard message.retain else { return }
        let evicted = state.withLock { state -> Int in
            remove(message.topic, from: &state)
            return message.payload.isEmpty ? 0 : insert(message, into: &state)
        }
        if evicted > 0 { evictions?.increment(by: Int64(evicted)) }
    }

    /// Takes back messages a restored snapshot carries: each one whose topic has no message
    /// here (what this instance recorded itself is newer than a snapshot).
    /// - Returns: how many were taken.
    @discardableResult
    func restore(_ messages: [OutboundMessage]) -> Int {
        let taken = messages.filter { $0.retain && !$0.payload.isEmpty && $0.device != nil }
        guard !taken.isEmpty else { return 0 }
        let (restored, evicted) = state.withLock { state -> (Int, Int) in
            var restored = 0
            var evicted = 0
            for message in taken where state.messages[message.topic] == nil {
                restored += 1
                evicted += insert(message, into: &state)
            }
            return (restored, evicted)
        }
        if evicted > 0 { evictions?.increment(by: Int64(evicted)) }
        return restored
    }

    /// The messages about `device`, oldest first (nil when there are none): its snapshot carries them.
    func messages(of device: DeviceID) -> [OutboundMessage]? {
        state.withLock { state in
            guard let topics = state.topics[device] else { return nil }
            return topics.compactMap { state.messages[$0] }.sorted { $0.order < $1.order }.map(\.message)
        }
    }

    /// Forgets every message about `device` (another instance publishes for it now: re-announcing
    /// this instance's older state after a broker restart would overwrite the newer).
    func forget(_ device: DeviceID) {
        state.withLock { state in
            for topic in state.topics[device] ?? [] { remove(topic, from: &state) }
        }
    }

    /// Forgets every message about the devices of a lost ownership partition that `belongs`
    /// accepts (a worker forgets its own shard's: another shard's may still publish frames from
    /// before the loss), resident or not.
    func forget(partition: Int, where belongs: (DeviceID) -> Bool) {
        state.withLock { state in
            for device in state.devices[partition] ?? [] where belongs(device) {
                for topic in state.topics[device] ?? [] { remove(topic, from: &state) }
            }
        }
    }

    /// Every remembered message, oldest first (the order they were last written).
    func snapshot() -> [OutboundMessage] {
        state.withLock { state in state.messages.values.sorted { $0.order < $1.order }.map(\.message) }
    }

    /// Topics dropped to stay within the bound, so far.
    var evictedCount: UInt64 { state.withLock { $0.evicted } }

    /// Topics remembered now.
    var count: Int { state.withLock { $0.messages.count } }

    /// Drops the oldest-written topics until the bound holds; returns how many.
    private func evictOldest(_ state: inout State) -> Int {
        // Rare (the bound is far above a normal fleet's state): a sort is fine here.
        var dropped = 0
        for (topic, entry) in state.messages.sorted(by: { $0.value.order < $1.value.order }) {
            guard state.bytes > limit else { break }
            _ = entry
            remove(topic, from: &state)
            state.evicted += 1
            dropped += 1
        }
        return dropped
    }

    /// Adds a message whose topic has no entry; returns how many topics the bound then dropped.
    private func insert(_ message: OutboundMessage, into state: inout State) -> Int {
        state.nextOrder += 1
        state.messages[message.topic] = Entry(message: Self.compacted(message), order: state.nextOrder)
        if let device = message.device, state.topics[device, default: []].insert(message.topic).inserted, state.topics[device]?.count == 1 {
            state.devices[partitions.partition(of: device.rawValue), default: []].insert(device)
        }
        state.bytes += Self.size(message)
        return state.bytes > limit ? evictOldest(&state) : 0
    }

    /// Removes a topic's message and its index entries.
    private func remove(_ topic: String, from state: inout State) {
        guard let old = state.messages.removeValue(forKey: topic) else { return }
        state.bytes -= Self.size(old.message)
        if let device = old.message.device {
            state.topics[device]?.remove(topic)
            if state.topics[device]?.isEmpty == true {
                state.topics[device] = nil
                let partition = partitions.partition(of: device.rawValue)
                state.devices[partition]?.remove(device)
                if state.devices[partition]?.isEmpty == true { state.devices[partition] = nil }
            }
        }
    }

    private static func size(_ message: OutboundMessage) -> Int { message.topic.utf8.count + message.payload.count }

    /// The message with a payload buffer of its exact size: payloads are written by appending,
    /// so their buffers carry up to as much again in spare capacity, which a cache of every
    /// device's state would keep for as long as the device lives.
    private static func compacted(_ message: OutboundMessage) -> OutboundMessage {
        guard message.payload.capacity > message.payload.count + 32 else { return message }
        var compact = message
        compact.payload = message.payload.withUnsafeBufferPointer { Array($0) }
        return compact
    }
}
