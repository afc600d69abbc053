/// The summary of one dive, published on `gateway/{id}/submersion/dive` when the diver surfaces
/// or the data stops for ``SubmersionConfiguration/diveEndSilence``.
public struct DiveSummary: Sendable, Equatable, Codable {
    /// Why the dive ended.
    public enum EndReason: String, Sendable, Equatable, Codable {
        /// A `notSubmerged` event.
        case surfaced
        /// No submersion frame for ``SubmersionConfiguration/diveEndSilence``.
        case silence
        /// Measurements said the surface for ``SubmersionConfiguration/surfaceTimeout`` without a
        /// `notSubmerged` event (it was lost).
        case surfaceTimeout
    }

    /// Seconds spent in each submerged band.
    public struct TimeInState: Sendable, Equatable, Codable {
        /// s in ``DepthState/submergedShallow``.
        public var submergedShallow = 0.0
        /// s in ``DepthState/submergedDeep``.
        public var submergedDeep = 0.0
        /// s in ``DepthState/approachingMaxDepth``.
        public var approachingMaxDepth = 0.0
        /// s in ``DepthState/pastMaxDepth``.
        public var pastMaxDepth = 0.0
        /// s in ``DepthState/sensorDepthError``.
        public var sensorDepthError = 0.0

        /// Creates zero durations.
        public init() {}

        /// The seconds spent in a band; other states read 0 and are not stored.
        public subscript(state: DepthState) -> Double {
            get {
                switch state {
                case .submergedShallow: submergedShallow
                case .submergedDeep: submergedDeep
                case .approachingMaxDepth: approachingMaxDepth
                case .pastMaxDepth: pastMaxDepth
                case .sensorDepthError: sensorDepthError
                case .unknown, .notSubmerged: 0
                }
            }
            set {
                switch state {
                case .submergedShallow: submergedShallow = newValue
                case .submergedDeep: submergedDeep = newValue
                case .approachingMaxDepth: approachingMaxDepth = newValue
                case .pastMaxDepth: pastMaxDepth = newValue
                case .sensorDepthError: sensorDepthError = newValue
                case .unknown, .notSubmerged: break
                }
            }
        }

        /// The five bands, shallow to deep.
        public static let bands: [DepthState] = [.submergedShallow, .submergedDeep, .approachingMaxDepth, .pastMaxDepth, .sensorDepthError]

        /// The sum over the bands, s.
        public var total: Double { Self.bands.reduce(0) { $0 + self[$1] } }
    }

    /// When the dive started (the input that entered the water), Unix epoch seconds.
    public var startDate: Double
    /// When it ended: the `notSubmerged` event, or the last input before a silence.
    public var endDate: Double
    /// Why it ended.
    public var endReason: EndReason
    /// The deepest depth measured, m (0 when no measurement had a depth). Readings beyond the
    /// sensor's range carry none, so ``deepestState`` says whether the dive went further.
    public var maxDepth: Double
    /// The deepest state reached.
    public var deepestState: DepthState
    /// The entitlement's maximum depth M in force at the end, m.
    public var maximumDepth: Double
    /// Seconds in each band; they add up to ``duration``.
    public var timeInState: TimeInState
    /// The coldest water temperature reading of the dive.
    public var minTemperature: WaterTemperature?
    /// The last water temperature reading of the dive.
    public var lastTemperature: WaterTemperature?
    /// Measurements applied during the dive.
    public var measurements: Int
    /// Ascent-rate warnings raised during the dive.
    public var ascentWarnings: Int
    /// The safety-stop verdict.
    public var safetyStop: SafetyStopRule.Outcome
    /// The longest stop in the safety-stop band after the deepest point, s.
    public var longestSafetyStop: Double
    /// Inputs dropped during the dive because they were older than what was processed.
    public var staleInputs: Int
    /// Inputs dropped during the dive as redeliveries (same date as the last of their stream).
    public var duplicateInputs: Int

    /// The dive's length, s.
    public var duration: Double { endDate - startDate }

    /// Writes the summary as the `gateway/{id}/submersion/dive` payload.
    /// - Parameters:
    ///   - writer: the writer.
    ///   - device: the device id.
    public func write(to writer: inout JSONWriter, device: DeviceID) {
        writer.object {
            $0.field("deviceId", device.rawValue)
            $0.field("eventId", eventID(device: device))
            $0.field("startDate", startDate)
            $0.field("endDate", endDate)
            $0.field("duration", Self.milliseconds(duration))
            $0.field("endReason", endReason.rawValue)
            $0.field("maxDepth", maxDepth)
            $0.field("deepestState", deepestState.name)
            $0.field("maximumDepth", maximumDepth)
            $0.field(
                "timeInState",
                object: { times in
                    for band in TimeInState.bands { times.field(band.name, Self.milliseconds(timeInState[band])) }
                })
            if let minTemperature {
                $0.field("minTemperature", minTemperature.temperature)
                $0.field("minTemperatureUncertainty", minTemperature.temperatureUncertainty)
            }
            if let lastTemperature {
                $0.field("lastTemperature", lastTemperature.temperature)
                $0.field("lastTemperatureUncertainty", lastTemperature.temperatureUncertainty)
            }
            $0.field("measurements", measurements)
            $0.field("ascentWarnings", ascentWarnings)
            $0.field("safetyStop", safetyStop.rawValue)
            $0.field("longestSafetyStop", Self.milliseconds(longestSafetyStop))
            $0.field("staleInputs", staleInputs)
            $0.field("duplicateInputs", duplicateInputs)
            $0.field("date", endDate)
        }
    }

    /// A duration rounded to ms for the payload (differences of epoch dates carry binary noise
    /// such as 176.6670000553131).
    /// - Parameter seconds: s.
    /// - Returns: s, a multiple of 0.001.
    public static func milliseconds(_ seconds: Double) -> Double {
        seconds.rounded(toPlaces: 3)
    }

    /// The event id: the device and the dive's start and end dates.
    /// - Parameter device: the device id.
    /// - Returns: 16 hex digits.
    public func eventID(device: DeviceID) -> String {
        EventID.make(device.rawValue, TopicScheme.Leaf.submersionDive.rawValue, String(describing: startDate), String(describing: endDate))
    }
}
