import CSimdjson

// The high-rate streams: C++ fills a flat buffer of samples in one call, Swift builds the models.

extension FrameDecoder {
    /// `batched/accelerometer`: `{"sequence"?, "samples":[{"timestamp","acceleration":{x,y,z}}…]}`.
    static func accelerometerBatch(_ payload: JSONText) throws(PayloadProblem) -> AccelerometerBatch {
        let (members, samples) = try decodeSamples(
            payload, keys: batchKeys, minimumSampleBytes: Int(WG_ACCELEROMETER_SAMPLE_MIN_JSON_BYTES),
            decoder: wg_decode_accelerometer_batch
        ) { (raw: wg_accelerometer_sample, _, _) throws(PayloadProblem) in
            AccelerometerSample(timestamp: raw.timestamp, acceleration: Vector3(raw.acceleration))
        }
        return AccelerometerBatch(samples: samples, sequence: try members.sequence())
    }

    /// `batched/device-motion`, `motion`, `headphone/motion`: `{"sequence"?, "samples":[DeviceMotion…]}`.
    static func deviceMotionBatch(_ payload: JSONText) throws(PayloadProblem) -> DeviceMotionBatch {
        let (members, samples) = try decodeSamples(
            payload, keys: batchKeys, minimumSampleBytes: Int(WG_DEVICE_MOTION_SAMPLE_MIN_JSON_BYTES),
            decoder: wg_decode_device_motion_batch, makeSample: deviceMotion
        )
        return DeviceMotionBatch(samples: samples, sequence: try members.sequence())
    }

    /// `recorder/accelerometer`: `{"sequence"?, "identifier", "samples":[{"timestamp","startDate","acceleration"}…]}`.
    static func recordedAccelerometerChunk(_ payload: JSONText) throws(PayloadProblem) -> RecordedAccelerometerChunk {
        let (members, samples) = try decodeSamples(
            payload, keys: recordedChunkKeys, minimumSampleBytes: Int(WG_RECORDED_ACCELEROMETER_SAMPLE_MIN_JSON_BYTES),
            decoder: wg_decode_recorded_accelerometer_batch
        ) { (raw: wg_recorded_accelerometer_sample, _, _) throws(PayloadProblem) in
            RecordedAccelerometerSample(timestamp: raw.timestamp, startDate: raw.start_date, acceleration: Vector3(raw.acceleration))
        }
        return RecordedAccelerometerChunk(
            identifier: try members["identifier"].unsignedInteger(), samples: samples, sequence: try members.sequence()
        )
    }

    // MARK: Private

    private static let batchKeys = JSONMemberKeys()
    private static let recordedChunkKeys = JSONMemberKeys("identifier")

    /// A C sample decoder: payload, length, members, sample buffer, capacity, decoded count, problem.
    private typealias SampleDecoder<Raw> = (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<wg_json_members>?, UnsafeMutablePointer<Raw>?, Int,
        UnsafeMutablePointer<Int>?, UnsafeMutablePointer<wg_decode_problem>?
    ) -> wg_decode_status

    /// Runs a C sample decoder into a scratch buffer and builds one model per sample.
    /// - Parameters:
    ///   - payload: the JSON text.
    ///   - keys: the top-level members to report besides `samples`.
    ///   - minimumSampleBytes: the decoder's `*_MIN_JSON_BYTES`; sizes the buffer so it cannot overflow.
    ///   - decoder: the C decoder.
    ///   - makeSample: builds a model from a decoded sample, its index and the call's string storage.
    /// - Returns: the reported members and the models, in payload order.
    private static func decodeSamples<Raw, Sample>(
        _ payload: JSONText,
        keys: JSONMemberKeys,
        minimumSampleBytes: Int,
        decoder: SampleDecoder<Raw>,
        makeSample: (Raw, Int, [UInt8]) throws(PayloadProblem) -> Sample
    ) throws(PayloadProblem) -> (JSONMembers, [Sample]) {
        let capacity = payload.bytes.count / minimumSampleBytes + 1
        let buffer = UnsafeMutableBufferPointer<Raw>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var count = 0
        let members = try JSONMembers.decode(payload, keys: keys) { data, length, members, problem in
            decoder(data, length, members, buffer.baseAddress, capacity, &count, problem)
        }
        var samples: [Sample] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            samples.append(try makeSample(buffer[index], index, members.strings))
        }
        return (members, samples)
    }

    /// Builds a ``DeviceMotion`` from a decoded sample; reads its optional and enumerated members.
    private static func deviceMotion(_ raw: wg_device_motion_sample, index: Int, strings: [UInt8]) throws(PayloadProblem) -> DeviceMotion {
        let sensorLocation = try JSONScalar(raw.sensor_location, strings: strings, path: FieldPath(sample: index, "sensorLocation"))
            .optionalEnumeration(SensorLocation.self)
        let heading = try JSONScalar(raw.heading, strings: strings, path: FieldPath(sample: index, "heading")).optionalNumber()
        var magneticField: MagneticField?
        if raw.has_magnetic_field != 0 {
            let accuracyPath = FieldPath(sample: index, object: "magneticField", "accuracy")
            let accuracy = try JSONScalar(raw.magnetic_field_accuracy, strings: strings, path: accuracyPath).enumeration(CalibrationAccuracy.self)
            magneticField = MagneticField(field: Vector3(raw.magnetic_field), accuracy: accuracy)
        }
        return DeviceMotion(
            timestamp: raw.timestamp,
            attitude: Quaternion(x: raw.attitude.x, y: raw.attitude.y, z: raw.attitude.z, w: raw.attitude.w),
            rotationRate: Vector3(raw.rotation_rate),
            gravity: Vector3(raw.gravity),
            userAcceleration: Vector3(raw.user_acceleration),
            sensorLocation: sensorLocation ?? .default,
            magneticField: magneticField,
            // Core Motion reports an invalid heading as a negative number; the model says nil.
            heading: heading.flatMap { $0 < 0 ? nil : $0 }
        )
    }
}

extension Vector3 {
    /// A vector from the C decoder's.
    fileprivate init(_ vector: wg_vector3) {
        self.init(x: vector.x, y: vector.y, z: vector.z)
    }
}
