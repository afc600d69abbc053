/// Encodes inbound stream payloads as the wire contract's JSON, UTF-8, without Foundation.
///
/// One `encode` per payload shape. Field names are the contract's; enums are written as their
/// Core Motion case names; optional fields are omitted when `nil`; `"sequence"` (the
/// contract's optional per-device, per-stream frame counter) is written first when present.
/// Non-finite numbers would become `null` (see ``JSONWriter``), which the gateway rejects.
public enum FrameEncoder: Sendable {
    /// `batched/accelerometer`: `{"sequence"?,"samples":[{"timestamp","acceleration"}…]}`.
    public static func encode(_ batch: AccelerometerBatch) -> [UInt8] {
        encoded(capacity: 32 + batch.samples.count * 96) { batch.write(to: &$0) }
    }

    /// `batched/device-motion`, `motion`, `headphone/motion`: `{"sequence"?,"samples":[DeviceMotion…]}`.
    public static func encode(_ batch: DeviceMotionBatch) -> [UInt8] {
        encoded(capacity: 32 + batch.samples.count * 400) { batch.write(to: &$0) }
    }

    /// `recorder/accelerometer`: `{"sequence"?,"identifier","samples":[{"timestamp","startDate","acceleration"}…]}`.
    public static func encode(_ chunk: RecordedAccelerometerChunk) -> [UInt8] {
        encoded(capacity: 64 + chunk.samples.count * 120) { chunk.write(to: &$0) }
    }

    /// `hello`: the device descriptor.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ descriptor: DeviceDescriptor, sequence: UInt64? = nil) -> [UInt8] {
        encoded { descriptor.write(to: &$0, sequence: sequence) }
    }

    /// `status`: `{"state","date"?}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ status: DeviceStatus, sequence: UInt64? = nil) -> [UInt8] {
        encoded { status.write(to: &$0, sequence: sequence) }
    }

    /// `authorization`: `{"status","date"}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ change: AuthorizationChange, sequence: UInt64? = nil) -> [UInt8] {
        encoded { change.write(to: &$0, sequence: sequence) }
    }

    /// `workout`: `{"state","activityType","date"}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ event: WorkoutEvent, sequence: UInt64? = nil) -> [UInt8] {
        encoded { event.write(to: &$0, sequence: sequence) }
    }

    /// `headphone/connection`: `{"event","date"}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ event: HeadphoneConnectionEvent, sequence: UInt64? = nil) -> [UInt8] {
        encoded { event.write(to: &$0, sequence: sequence) }
    }

    /// `submersion/event`: `{"date","state"}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ event: SubmersionEvent, sequence: UInt64? = nil) -> [UInt8] {
        encoded { event.write(to: &$0, sequence: sequence) }
    }

    /// `submersion/measurement`: `{"date","depth"?,"pressure"?,"surfacePressure","submersionState"}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ measurement: SubmersionMeasurement, sequence: UInt64? = nil) -> [UInt8] {
        encoded { measurement.write(to: &$0, sequence: sequence) }
    }

    /// `submersion/temperature`: `{"date","temperature","temperatureUncertainty"}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ temperature: WaterTemperature, sequence: UInt64? = nil) -> [UInt8] {
        encoded { temperature.write(to: &$0, sequence: sequence) }
    }

    /// `pedometer/data`: CMPedometerData's fields.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ data: PedometerData, sequence: UInt64? = nil) -> [UInt8] {
        encoded(capacity: 320) { data.write(to: &$0, sequence: sequence) }
    }

    /// `pedometer/event`: `{"date","type"}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ event: PedometerEvent, sequence: UInt64? = nil) -> [UInt8] {
        encoded { event.write(to: &$0, sequence: sequence) }
    }

    /// `altimeter`: `{"timestamp","relativeAltitude","pressure"}`.
    /// - Parameter sequence: the frame's sequence number, if any.
    public static func encode(_ sample: AltitudeSample, sequence: UInt64? = nil) -> [UInt8] {
        encoded { sample.write(to: &$0, sequence: sequence) }
    }

    private static func encoded(capacity: Int = 192, _ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        body(&writer)
        return writer.bytes
    }
}
