/// Where a page of a device's event history ended: the last row's (event time, event id).
/// Pages run newest first, so the next page holds the rows strictly before it in that order.
/// As text (the HTTP endpoint's `after`): `<seconds>:<eventId>`, e.g. `1767226181.667:35823e08309d5940`.
public struct EventHistoryCursor: Sendable, Equatable {
    /// Unix epoch seconds of the last row returned.
    public var eventTime: Double
    /// Its event id.
    public var eventId: String

    /// A cursor after the row with this time and id.
    public init(eventTime: Double, eventId: String) {
        self.eventTime = eventTime
        self.eventId = eventId
    }

    /// Parses ``text``'s form; nil when it is not a finite number, a colon and an id of hex digits.
    public init?(text: String) {
        guard let colon = text.lastIndex(of: ":"), let time = Double(text[..<colon]), time.isFinite else { return nil }
        let id = text[text.index(after: colon)...]
        guard !id.isEmpty, id.count <= 64, id.allSatisfy(\.isHexDigit) else { return nil }
        self.init(eventTime: time, eventId: String(id))
    }

    /// `<seconds>:<eventId>`; Swift prints a `Double` so that it parses back to the same value.
    public var text: String { "\(eventTime):\(eventId)" }
}
