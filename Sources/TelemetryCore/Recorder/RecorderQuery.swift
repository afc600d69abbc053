import CSimdjson

/// A request for a device's stored historical accelerometer data (or tremor results) over a
/// wall-clock range, as received on `gateway/{id}/recorder/query`.
///
/// The range is inclusive at both ends (Core Motion's documentation; its header says the start
/// is exclusive — the gateway takes the documented reading) and at most ``maximumRange``
/// seconds long, as `CMSensorRecorder.accelerometerData(from:to:)`.
public struct RecorderQuery: Sendable, Equatable {
    /// What the request asks for.
    public enum Kind: String, WireEnumeration {
        /// The stored 50 Hz samples, in order.
        case accelerometer
        /// One tremor result per minute of the range that holds recorded data.
        case tremor

        /// The wire name, `"accelerometer"` or `"tremor"`.
        public var name: String { rawValue }
    }

    /// The longest range a request may cover, seconds (12 h, as Core Motion's query).
    public static let maximumRange: Double = 43_200

    /// The device whose data is requested.
    public var device: DeviceID
    /// The first wall-clock date included, Unix epoch seconds.
    public var from: Double
    /// The last wall-clock date included, Unix epoch seconds.
    public var to: Double
    /// What is requested.
    public var kind: Kind

    /// Creates a query.
    /// - Parameters:
    ///   - device: the device.
    ///   - from: the first date included, Unix epoch seconds.
    ///   - to: the last date included, Unix epoch seconds.
    ///   - kind: samples or tremor results; defaults to samples.
    public init(device: DeviceID, from: Double, to: Double, kind: Kind = .accelerometer) {
        self.device = device
        self.from = from
        self.to = to
        self.kind = kind
    }

    /// Parses and checks a request payload `{"from": …, "to": …, "kind"?: "accelerometer"|"tremor"}`.
    /// - Parameters:
    ///   - payload: the request's JSON payload.
    ///   - device: the device its topic names.
    ///   - maximumRange: the longest range accepted, seconds (at most ``maximumRange``).
    /// - Returns: the query, or why it cannot be answered.
    public static func parse(_ payload: [UInt8], device: DeviceID, maximumRange: Double = maximumRange) -> Result<RecorderQuery, RecorderQueryError> {
        let members: JSONMembers
        let from: Double
        let to: Double
        let kind: Kind
        do throws(PayloadProblem) {
            let decoded = payload.withUnsafeBytes { bytes in
                Result { () throws(PayloadProblem) in
                    try JSONMembers.decode(bytes, keys: keys) { data, length, members, problem in
                        wg_decode_members(data, length, members, problem)
                    }
                }
            }
            members = try decoded.get()
            from = try members["from"].number()
            to = try members["to"].number()
            kind = try members["kind"].optionalEnumeration(Kind.self) ?? .accelerometer
        } catch {
            return .failure(RecorderQueryError(.invalidRequest, detail: error.detail + " (expected {\"from\": epoch seconds, \"to\": epoch seconds, \"kind\"?: \"accelerometer\"|\"tremor\"})"))
        }
        guard from.isFinite, to.isFinite, from >= 0 else {
            return .failure(RecorderQueryError(.invalidRange, detail: "from and to must be finite Unix epoch seconds, got from \(from), to \(to)"))
        }
        guard from <= to else {
            return .failure(RecorderQueryError(.invalidRange, detail: "from (\(from)) is after to (\(to))"))
        }
        let limit = min(maximumRange, Self.maximumRange)
        guard to - from <= limit else {
            return .failure(
                RecorderQueryError(
                    .rangeTooLong, detail: "the range covers \(to - from) s; at most \(limit) s (12 h, as Core Motion's accelerometerData(from:to:)) may be requested at once"))
        }
        return .success(RecorderQuery(device: device, from: from, to: to, kind: kind))
    }

    private static let keys = JSONMemberKeys("from", "to", "kind")
}
