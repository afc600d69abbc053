import TelemetryCore

/// The fleet page's data as a value: per device the latest event of each family and short
/// histories (depth events, swings), bounded three ways: devices (`maxDevices`), entries per
/// history (`historyLimit`) and bytes (`maxBytes`).
///
/// Bytes are counted as what the JSON answer of `/api/fleet` can hold: each kept payload
/// plus ``entryOverhead`` (its key or separator), each device ``deviceOverhead`` plus six
/// bytes per byte of its id (the worst case of escaping). So a snapshot's JSON is never
/// larger than ``bytes``, and ``bytes`` never exceeds `maxBytes`. A payload kept both as
/// latest and in a history counts twice.
///
/// When an event does not fit, the oldest history entries of the whole fleet go first (the
/// table's latest values matter more than old plot points); if it still does not fit, the
/// event is kept without its history entry, or, when even that does not fit, dropped, and
/// the device's previous event of that family is removed too (rather than shown as latest).
/// A pure state machine: the caller holds the lock and counts the ``Drops``.
struct FleetStore: Sendable {
    /// Which history of a device an entry belongs to.
    enum History: Sendable {
        case depth
        case swings
    }

    /// One history entry; `sequence` orders entries fleet-wide for the oldest-first eviction.
    struct Entry: Sendable {
        var sequence: UInt64
        var payload: [UInt8]
    }

    /// One device's part of the view.
    struct Device: Sendable {
        let id: String
        var latest: [EventFamily: [UInt8]] = [:]
        var depthHistory: [Entry] = []
        var swings: [Entry] = []

        subscript(history: History) -> [Entry] {
            get { history == .depth ? depthHistory : swings }
            set {
                if history == .depth { depthHistory = newValue } else { swings = newValue }
            }
        }
    }

    /// What one ``record(device:family:payload:)`` could not keep.
    struct Drops: Equatable, Sendable {
        /// History entries removed or not added for the byte budget.
        var history = 0
        /// Events not kept at all for the byte budget.
        var events = 0
        /// Events ignored because their device would exceed `maxDevices`.
        var devices = 0
    }

    /// Where a history entry lives, in the fleet-wide age order.
    private struct Reference: Sendable {
        var device: Int
        var history: History
        var sequence: UInt64
    }

    /// Bytes counted per kept payload besides the payload itself: the longest family key
    /// (`"headphone_connection":`) or a separator fits in it.
    static let entryOverhead = 32
    /// Bytes counted per device besides six per byte of its id: the object's fixed keys.
    static let deviceOverhead = 96

    /// The devices, in the order they appeared; never removed, so an index stays valid.
    private(set) var devices: [Device] = []
    /// The bytes counted for everything kept.
    private(set) var bytes = 0
    private var index: [String: Int] = [:]
    /// History entries, oldest first, from `head`; entries the per-device limit already
    /// removed stay until they reach the head or a compaction.
    private var order: [Reference] = []
    private var head = 0
    private var historyEntries = 0
    private var nextSequence: UInt64 = 0
    let maxDevices: Int
    let historyLimit: Int
    let maxBytes: Int

    /// Creates an empty store.
    init(maxDevices: Int, historyLimit: Int, maxBytes: Int) {
        self.maxDevices = maxDevices
        self.historyLimit = historyLimit
        self.maxBytes = maxBytes
    }

    /// The number of history entries kept (both kinds, all devices).
    var historyCount: Int { historyEntries }

    /// The references in the age order, kept ones and those the per-device limit left behind.
    var pendingReferences: Int { order.count - head }

    /// Keeps `payload` as `device`'s latest `family` event (and in its history for depth
    /// events and swings), within the bounds; returns what had to go.
    mutating func record(device id: String, family: EventFamily, payload: [UInt8]) -> Drops {
        var drops = Drops()
        let existing = index[id]
        if existing == nil, devices.count >= maxDevices {
            drops.devices = 1
            return drops
        }
        let history: History? =
            switch family {
            case .depthState, .submersion: .depth
            case .swing: .swings
            default: nil
            }
        let entryCost = payload.count + Self.entryOverhead
        let deviceCost = existing == nil ? Self.cost(ofDevice: id) : 0
        let replaced = existing.flatMap { devices[$0].latest[family] }.map { $0.count + Self.entryOverhead } ?? 0
        let withoutHistory = deviceCost + entryCost - replaced
        var keepHistory = history != nil
        if !makeRoom(for: withoutHistory + (keepHistory ? entryCost : 0), drops: &drops) {
            guard keepHistory, makeRoom(for: withoutHistory, drops: &drops) else {
                drops.events += 1
                if let existing, devices[existing].latest.removeValue(forKey: family) != nil { bytes -= replaced }
                return drops
            }
            keepHistory = false
            drops.history += 1
        }
        let position: Int
        if let existing {
            position = existing
        } else {
            position = devices.count
            devices.append(Device(id: id))
            index[id] = position
        }
        devices[position].latest[family] = payload
        bytes += withoutHistory
        if keepHistory, let history { append(payload, to: history, of: position) }
        return drops
    }

    /// Bytes counted for a device with no events yet.
    static func cost(ofDevice id: String) -> Int { deviceOverhead + 6 * id.utf8.count }

    /// Evicts the fleet's oldest history entries until `cost` more bytes fit; false when they
    /// cannot (no history left).
    private mutating func makeRoom(for cost: Int, drops: inout Drops) -> Bool {
        while bytes + cost > maxBytes {
            guard evictOldestHistoryEntry() else { return false }
            drops.history += 1
        }
        return true
    }

    private mutating func append(_ payload: [UInt8], to history: History, of position: Int) {
        let sequence = nextSequence
        nextSequence += 1
        devices[position][history].append(Entry(sequence: sequence, payload: payload))
        order.append(Reference(device: position, history: history, sequence: sequence))
        historyEntries += 1
        bytes += payload.count + Self.entryOverhead
        if devices[position][history].count > historyLimit {
            let removed = devices[position][history].removeFirst()
            historyEntries -= 1
            bytes -= removed.payload.count + Self.entryOverhead
        }
        // Entries removed by the per-device limit leave references behind; dropping them once
        // they outnumber the live ones keeps `order` proportional to what is kept (amortised).
        if order.count - head > 2 * historyEntries + 4096 {
            order = order[head...].filter(isKept)
            head = 0
        }
    }

    /// Removes the oldest history entry still kept; false when none is.
    private mutating func evictOldestHistoryEntry() -> Bool {
        while head < order.count {
            let reference = order[head]
            head += 1
            if head >= 4096, head * 2 >= order.count {
                order.removeFirst(head)
                head = 0
            }
            guard isKept(reference) else { continue }
            let removed = devices[reference.device][reference.history].removeFirst()
            historyEntries -= 1
            bytes -= removed.payload.count + Self.entryOverhead
            return true
        }
        return false
    }

    /// Whether the entry `reference` points at is still in its history (entries are only
    /// appended with rising sequence numbers and removed from the front).
    private func isKept(_ reference: Reference) -> Bool {
        guard let first = devices[reference.device][reference.history].first else { return false }
        return first.sequence <= reference.sequence
    }
}
