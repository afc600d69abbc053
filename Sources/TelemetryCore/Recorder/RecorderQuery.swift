import CSimdjson

/// A request for a device's stored historical accelerometer data (or tremor results) over a
/// wall-clock range, as received on `gateway/{id}/recorder/query`.
///
/// The range is inclusive at both ends (Core Motion's documentation; its header says the start
/// is exclusive — the gateway takes the documented reading). Its length is bounded by the
/// gateway's setting, by default the store's whole retention window: watchOS 3 raised
/// `CMSensorRecorder`'s query duration from 12 h to 36 h (WWDC16 session 713), and the gateway
/// keeps 36 h by default, so a 12 h cap would refuse data it holds.
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
    ///   - maximumRange: the longest range accepted, seconds (the gateway passes its retention
    ///     window unless `recorder.maxQueryRange` says less).
    /// - Returns: the query, or why it cannot be answered.
    public static func parse(_ payload: [UInt8], device: DeviceID, maximumRange: Double) -> Result<RecorderQuery, RecorderQueryError> {
        let members: JSONMembers
        let from: Double
        let to: Double
        let kind: Kind
        do throws(PayloadProblem) {
            let decoded = payload.withUnsafeBytes { bytes in
                Result { () throws(PayloadProblem) in
                    try JSONMembers.decode(JSONText(bytes), keys: keys) { data, length, members, problem in
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
        guard to - from <= maximumRange else {
            return .failure(
                RecorderQueryError(
                    .rangeTooLong,
                    detail: "the range covers \(to - from) s; at most \(maximumRange) s (recorder.maxQueryRange, by default recorder.retention) may be requested at once"))
        }
        return .success(RecorderQuery(device: device, from: from, to: to, kind: kind))
    }

    private static let keys = JSONMemberKeys("from", "to", "kind")
}
