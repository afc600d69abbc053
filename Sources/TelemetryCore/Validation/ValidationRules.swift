/// The checks behind ``FrameValidator``, one method per rule, each throwing the problem it finds.
struct ValidationRules {
    let limits: ValidationLimits
    /// Whether a batch is first checked in one pass (``SampleBatchPrecheck``); off only in the
    /// tests that hold that pass to the rules.
    var precheck = true

    /// Checks every value of `frame`.
    func check(_ frame: DecodedFrame) throws(PayloadProblem) {
        switch frame {
        case .hello:
            break
        case .status(let status, _):
            if let sent = status.date { try date(sent, FieldPath("date")) }
        case .authorization(let change, _):
            try date(change.date, FieldPath("date"))
        case .workout(let event, _):
            // Only the frame that opens a session needs its type; a state change may omit it.
            if event.state == .running, event.activityType == nil {
                throw problem(.missingField, FieldPath("activityType"), "missing (required when state is running)")
            }
            try date(event.date, FieldPath("date"))
        case .headphoneConnection(let event, _):
            try date(event.date, FieldPath("date"))
        case .submersionEvent(let event, _):
            try date(event.date, FieldPath("date"))
        case .pedometerEvent(let event, _):
            try date(event.date, FieldPath("date"))
        case .submersionMeasurement(let measurement, _):
            try check(measurement)
        case .submersionTemperature(let temperature, _):
            try date(temperature.date, FieldPath("date"))
            try within(temperature.temperature, limits.waterTemperatureRange, unit: "°C", FieldPath("temperature"))
            try nonNegative(temperature.temperatureUncertainty, FieldPath("temperatureUncertainty"))
        case .pedometerData(let data, _):
            try check(data)
        case .altimeter(let sample, _):
            try nonNegative(sample.timestamp, FieldPath("timestamp"))
            try finite(sample.relativeAltitude, FieldPath("relativeAltitude"))
            try within(sample.pressure, limits.pressureRange, unit: "kPa", FieldPath("pressure"))
        case .batchedAccelerometer(let batch):
            // A valid batch in one pass; otherwise the rules below find and describe the problem.
            if precheck, lengthAllowed(batch.samples.count, for: .batchedAccelerometer), SampleBatchPrecheck.passes(batch.samples, limits: limits) { return }
            try samples(batch.samples, of: .batchedAccelerometer, timestamp: { $0[$1].timestamp }) { samples, index throws(PayloadProblem) in
                try vector(samples[index].acceleration, atMost: limits.maxAcceleration, unit: "g", FieldPath(sample: index, "acceleration"))
            }
        case .recorderAccelerometer(let chunk):
            try samples(chunk.samples, of: .recorderAccelerometer, timestamp: { $0[$1].timestamp }) { samples, index throws(PayloadProblem) in
                try date(samples[index].startDate, FieldPath(sample: index, "startDate"))
                try vector(samples[index].acceleration, atMost: limits.maxAcceleration, unit: "g", FieldPath(sample: index, "acceleration"))
            }
        case .motion(let batch), .headphoneMotion(let batch), .batchedDeviceMotion(let batch):
            if precheck, lengthAllowed(batch.samples.count, for: frame.stream), SampleBatchPrecheck.passes(batch.samples, limits: limits) { return }
            try samples(batch.samples, of: frame.stream, timestamp: { $0[$1].timestamp }) { samples, index throws(PayloadProblem) in
                try check(samples, index: index)
            }
        }
    }

    // MARK: Models

    /// Checks `samples[index]`, read field by field where it lies.
    private func check(_ samples: UnsafeBufferPointer<DeviceMotion>, index: Int) throws(PayloadProblem) {
        try attitude(samples[index].attitude, FieldPath(sample: index, "attitude"))
        try vector(samples[index].rotationRate, atMost: limits.maxRotationRate, unit: "rad/s", FieldPath(sample: index, "rotationRate"))
        try vector(samples[index].gravity, atMost: limits.maxGravity, unit: "g", FieldPath(sample: index, "gravity"))
        try vector(samples[index].userAcceleration, atMost: limits.maxAcceleration, unit: "g", FieldPath(sample: index, "userAcceleration"))
        if let magneticField = samples[index].magneticField {
            try vector(magneticField.field, atMost: limits.maxMagneticField, unit: "µT", FieldPath(sample: index, "magneticField"))
        }
        if let heading = samples[index].heading, !(heading >= 0 && heading < 360) {
            try finite(heading, FieldPath(sample: index, "heading"))
            throw problem(.outOfBounds, FieldPath(sample: index, "heading"), "\(heading.problemText) is outside [0, 360) degrees")
        }
    }

    private func check(_ measurement: SubmersionMeasurement) throws(PayloadProblem) {
        try date(measurement.date, FieldPath("date"))
        if let depth = measurement.depth { try within(depth, limits.depthRange, unit: "m", FieldPath("depth")) }
        if let pressure = measurement.pressure { try within(pressure, limits.pressureRange, unit: "kPa", FieldPath("pressure")) }
        try within(measurement.surfacePressure, limits.pressureRange, unit: "kPa", FieldPath("surfacePressure"))
    }

    private func check(_ data: PedometerData) throws(PayloadProblem) {
        try date(data.startDate, FieldPath("startDate"))
        try date(data.endDate, FieldPath("endDate"))
        guard data.endDate >= data.startDate else {
            throw problem(.outOfBounds, FieldPath("endDate"), "\(data.endDate.problemText) is before startDate \(data.startDate.problemText)")
        }
        try nonNegative(data.numberOfSteps, FieldPath("numberOfSteps"))
        if let floors = data.floorsAscended { try nonNegative(floors, FieldPath("floorsAscended")) }
        if let floors = data.floorsDescended { try nonNegative(floors, FieldPath("floorsDescended")) }
        let optionals: [(Double?, String)] = [
            (data.distance, "distance"), (data.currentPace, "currentPace"), (data.currentCadence, "currentCadence"),
            (data.averageActivePace, "averageActivePace"),
        ]
        for case (let value?, let name) in optionals { try nonNegative(value, FieldPath(name)) }
    }

    // MARK: Batches

    /// Whether `count` samples is a batch length `stream` allows.
    private func lengthAllowed(_ count: Int, for stream: InboundStream) -> Bool {
        limits.batchLength(for: stream)?.contains(count) ?? true
    }

    /// Checks the batch length for `stream`, then each sample's timestamp (finite, ≥ 0, not before
    /// the previous one), then `check(samples, index)`.
    ///
    /// The samples are lent as a buffer and read field by field: a device-motion sample is 161
    /// bytes, and handing samples over by value copied each one (a `memcpy` call) four times.
    private func samples<Sample>(
        _ samples: [Sample],
        of stream: InboundStream,
        timestamp: (UnsafeBufferPointer<Sample>, Int) -> Double,
        check: (UnsafeBufferPointer<Sample>, Int) throws(PayloadProblem) -> Void
    ) throws(PayloadProblem) {
        if !lengthAllowed(samples.count, for: stream), let allowed = limits.batchLength(for: stream) {
            let range = "\(allowed.lowerBound)…\(allowed.upperBound)"
            let message =
                samples.isEmpty
                ? "empty batch; \(stream.rawValue) frames carry \(range) samples"
                : "\(samples.count) samples; \(stream.rawValue) frames carry \(range)"
            throw problem(.sampleCount, FieldPath("samples"), message)
        }
        try samples.withUnsafeBufferPointer { samples throws(PayloadProblem) in
            var previous = -Double.infinity
            for index in samples.indices {
                let time = timestamp(samples, index)
                try nonNegative(time, FieldPath(sample: index, "timestamp"))
                guard time >= previous else {
                    throw problem(
                        .timestampOrder, FieldPath(sample: index, "timestamp"),
                        "\(time.problemText) is earlier than the previous sample's \(previous.problemText)"
                    )
                }
                previous = time
                try check(samples, index)
            }
        }
    }

    // MARK: Values
    //
    // Each check is one comparison on the fast path; NaN fails every comparison, so it lands on the
    // slow path, which works out the precise problem. Paths are autoclosures: built only on failure.

    private func finite(_ value: Double, _ path: @autoclosure () -> FieldPath) throws(PayloadProblem) {
        guard value.isFinite else { throw problem(.notFinite, path(), "not a finite number (\(value))") }
    }

    /// Timestamps (seconds since boot) and dates (Unix epoch seconds): finite and ≥ 0.
    private func date(_ value: Double, _ path: @autoclosure () -> FieldPath) throws(PayloadProblem) {
        try nonNegative(value, path())
    }

    private func nonNegative(_ value: Double, _ path: @autoclosure () -> FieldPath) throws(PayloadProblem) {
        guard value >= 0, value < .infinity else {
            try finite(value, path())
            throw problem(.outOfBounds, path(), "\(value.problemText) is negative")
        }
    }

    private func nonNegative(_ value: Int, _ path: @autoclosure () -> FieldPath) throws(PayloadProblem) {
        guard value >= 0 else { throw problem(.outOfBounds, path(), "\(value) is negative") }
    }

    private func within(
        _ value: Double,
        _ range: ClosedRange<Double>,
        unit: String,
        _ path: @autoclosure () -> FieldPath
    ) throws(PayloadProblem) {
        guard range.contains(value) else {
            try finite(value, path())
            throw problem(
                .outOfBounds, path(),
                "\(value.problemText) \(unit) is outside \(range.lowerBound.problemText)…\(range.upperBound.problemText) \(unit)"
            )
        }
    }

    /// Finite components and a magnitude of at most `limit`.
    private func vector(_ vector: Vector3, atMost limit: Double, unit: String, _ path: @autoclosure () -> FieldPath) throws(PayloadProblem) {
        let magnitude = vector.norm
        guard magnitude <= limit else {
            try finite(vector.x, path().appending("x"))
            try finite(vector.y, path().appending("y"))
            try finite(vector.z, path().appending("z"))
            throw problem(.outOfBounds, path(), "magnitude \(magnitude.problemText) \(unit) exceeds \(limit.problemText) \(unit)")
        }
    }

    /// Finite components and a norm within 1 ± the tolerance.
    private func attitude(_ attitude: Quaternion, _ path: @autoclosure () -> FieldPath) throws(PayloadProblem) {
        let norm = attitude.norm
        guard abs(norm - 1) <= limits.quaternionNormTolerance else {
            try finite(attitude.x, path().appending("x"))
            try finite(attitude.y, path().appending("y"))
            try finite(attitude.z, path().appending("z"))
            try finite(attitude.w, path().appending("w"))
            throw problem(.outOfBounds, path(), "quaternion norm \(norm.problemText) is outside 1 ± \(limits.quaternionNormTolerance.problemText)")
        }
    }

    private func problem(_ reason: PayloadProblem.Reason, _ path: FieldPath, _ message: String) -> PayloadProblem {
        PayloadProblem(reason, field: path.description, message: message)
    }
}

extension Double {
    /// The number as problem reports show it: integral values without `.0` (`64`, `-1`), others as
    /// Swift prints them (`70.25`).
    fileprivate var problemText: String {
        if isFinite, self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return description
    }
}
