/// What the gateway keeps of one device across a restart or an eviction: the access state
/// (latest hello, authorization, workout session and its end grace, the availability last
/// published), the connection last published, and the derivation state (depth state and open
/// dive, headphone connection and pose reference, the workout's stroke counts, run timeline).
///
/// Sample windows (a swing's or a stroke's few seconds of samples) and sequence numbers are not
/// kept: they span seconds and start again empty. ``FrameProcessor/snapshot(of:)`` makes one,
/// ``FrameProcessor/restore(_:of:)`` takes it back; the gateway stores it as JSON.
public struct DeviceSnapshot: Sendable, Codable {
    /// The format this code writes; a stored snapshot of another format is not restored.
    public static let currentFormat = 1

    /// The format of this snapshot.
    public var format: Int
    /// When the gateway last received a frame of the device, Unix epoch seconds.
    public var lastSeen: Double
    /// The access state, if the device passed a control frame.
    public var access: AccessControl.Tracked?
    /// The connection state last published on `gateway/{id}/connection`, if any.
    public var connection: ConnectionState?
    /// The derivation state, if the device sent a frame a deriver uses.
    public var derivations: DeviceDerivations?
    /// The journal sequence of the last frame this state contains (nil: none journaled, or a
    /// snapshot from before it was kept). A device's frames are applied in journal order, so one
    /// number per device tells every replayed frame already in the state from the rest.
    public var appliedJournalSequence: UInt64?
    /// The identity of the journal that sequence belongs to (see
    /// ``FrameProcessor/Configuration/journalIdentity``).
    public var appliedJournalIdentity: UInt64?
    /// Outputs of frames this state contains whose publishing the broker had not yet
    /// acknowledged when the snapshot was taken: published again on restore, since the frames
    /// that made them are not replayed (same event ids, so consumers deduplicate).
    public var unacknowledgedOutputs: [OutboundMessage]?
    /// The retained messages last published about the device (availability, connection, depth
    /// state, …): whoever restores the device next can publish them again after a broker lost
    /// its retained messages, although it did not publish them itself (nil: none, or a snapshot
    /// from before they were kept).
    public var retainedOutputs: [OutboundMessage]?

    /// Whether a frame of this stream can change a device's snapshot. Batched samples only move
    /// sample windows, which snapshots leave out, so an 800 Hz stream never makes one stale.
    public static func canChange(from stream: InboundStream) -> Bool {
        !StreamRequirement.of(stream).needsRunningWorkout
    }

    /// Creates a snapshot in the current format.
    public init(lastSeen: Double, access: AccessControl.Tracked?, connection: ConnectionState?, derivations: DeviceDerivations?) {
        format = Self.currentFormat
        self.lastSeen = lastSeen
        self.access = access
        self.connection = connection
        self.derivations = derivations
    }

    /// Creates a snapshot in the current format with the last applied journal sequence.
    public init(
        lastSeen: Double, access: AccessControl.Tracked?, connection: ConnectionState?, derivations: DeviceDerivations?, appliedJournalSequence: UInt64?,
        journalIdentity: UInt64? = nil
    ) {
        self.init(lastSeen: lastSeen, access: access, connection: connection, derivations: derivations)
        self.appliedJournalSequence = appliedJournalSequence
        appliedJournalIdentity = appliedJournalSequence == nil ? nil : journalIdentity
    }
}
