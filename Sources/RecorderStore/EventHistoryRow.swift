import TelemetryCore

/// One derived event as the event history keeps it (docs/history.md): which device, which
/// family (the leaf of its outbound topic, e.g. `submersion/dive`), when, its event id and the
/// payload the gateway published, as JSON.
public struct EventHistoryRow: Sendable, Equatable {
    /// The device the event is about.
    public var device: DeviceID
    /// The outbound topic's leaf below the device, e.g. `swing` or `submersion/dive`.
    public var family: String
    /// Unix epoch seconds, whole microseconds (what PostgreSQL's `timestamptz` holds, so both
    /// stores give back the value they were given).
    public var eventTime: Double
    /// The event's `eventId` (16 hex digits): with ``eventTime`` the row's unique key.
    public var eventId: String
    /// The published JSON payload.
    public var payload: [UInt8]

    /// A row; `eventTime` is rounded to whole microseconds.
    public init(device: DeviceID, family: String, eventTime: Double, eventId: String, payload: [UInt8]) {
        self.device = device
        self.family = family
        self.eventTime = Self.microseconds(eventTime)
        self.eventId = eventId
        self.payload = payload
    }

    /// The row's place in the reading order, for the next page.
    public var cursor: EventHistoryCursor { EventHistoryCursor(eventTime: eventTime, eventId: eventId) }

    /// `seconds` rounded to whole microseconds.
    public static func microseconds(_ seconds: Double) -> Double { (seconds * 1e6).rounded() / 1e6 }
}
