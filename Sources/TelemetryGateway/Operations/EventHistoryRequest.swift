import RecorderStore
import TelemetryCore

/// A read of one device's event history: `GET /api/devices/{id}/events?family=&from=&to=&limit=&after=`
/// (docs/history.md). Bounded: at most ``maximumLimit`` events per page, newest first; the
/// answer's `next` continues after its last event.
public struct EventHistoryRequest: Sendable, Equatable {
    /// The device.
    public var device: DeviceID
    /// Only this family (an outbound leaf, e.g. `submersion/dive`); nil: every family.
    public var family: String?
    /// The earliest event time included, Unix epoch seconds.
    public var from: Double
    /// The latest event time included, Unix epoch seconds.
    public var to: Double
    /// Events per page.
    public var limit: Int
    /// Where the previous page ended; nil: from the newest.
    public var after: EventHistoryCursor?

    /// The default page size.
    public static let defaultLimit = 100
    /// The largest page.
    public static let maximumLimit = 1000

    /// The request of a device id and query parameters; a bad value's message names its parameter.
    public static func parse(device text: String, parameter: (String) -> String?) -> Result<EventHistoryRequest, EventHistoryRequestError> {
        guard let device = DeviceID(text) else { return .failure(.init("device id: \(DeviceID.validationProblem(text) ?? "invalid")")) }
        var request = EventHistoryRequest(device: device, family: nil, from: -.infinity, to: .infinity, limit: defaultLimit, after: nil)
        if let family = parameter("family"), !family.isEmpty {
            guard GatewayConfiguration.History.keepableFamilies.contains(family) else {
                return .failure(.init("family: '\(family)' is not a family of the event history (an outbound leaf such as submersion/dive or swing)"))
            }
            request.family = family
        }
        for (name, keyPath) in [("from", \EventHistoryRequest.from), ("to", \EventHistoryRequest.to)] {
            guard let value = parameter(name), !value.isEmpty else { continue }
            guard let seconds = Double(value), seconds.isFinite else { return .failure(.init("\(name): must be Unix epoch seconds, got '\(value)'")) }
            request[keyPath: keyPath] = seconds
        }
        guard request.from <= request.to else { return .failure(.init("from: must not be after to")) }
        if let value = parameter("limit"), !value.isEmpty {
            guard let limit = Int(value), (1...maximumLimit).contains(limit) else {
                return .failure(.init("limit: must be a whole number from 1 to \(maximumLimit), got '\(value)'"))
            }
            request.limit = limit
        }
        if let value = parameter("after"), !value.isEmpty {
            guard let cursor = EventHistoryCursor(text: value) else {
                return .failure(.init("after: must be the next value of an earlier page (<seconds>:<eventId>), got '\(value)'"))
            }
            request.after = cursor
        }
        return .success(request)
    }

    /// The answer's JSON: `{"deviceId":…,"events":[{"eventTime":…,"family":…,"eventId":…,"payload":{…}}],"next":…}`,
    /// `next` only when the page is full (null otherwise).
    public func page(_ rows: [EventHistoryRow]) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + rows.reduce(0) { $0 + $1.payload.count + 96 })
        writer.object { object in
            object.field("deviceId", device.rawValue)
            object.field("events", array: { list in
                for row in rows {
                    list.object { event in
                        event.field("eventTime", row.eventTime)
                        event.field("family", row.family)
                        event.field("eventId", row.eventId)
                        event.key("payload")
                        event.raw(row.payload)
                    }
                }
            })
            object.key("next")
            if rows.count == limit, let last = rows.last { object.value(last.cursor.text) } else { object.null() }
        }
        return writer.bytes
    }
}

/// Why an event history request was refused (HTTP 400); the message names the parameter.
public struct EventHistoryRequestError: Error, Equatable, Sendable {
    /// What is wrong.
    public let message: String
    init(_ message: String) { self.message = message }
}
