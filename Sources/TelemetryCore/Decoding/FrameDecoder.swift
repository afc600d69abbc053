/// Decodes inbound payloads into ``DecodedFrame``s: shape and types only; physical bounds are
/// ``FrameValidator``'s job.
///
/// JSON goes through simdjson (DOM, one C call per frame). The high-rate streams
/// (`batched/accelerometer`, `batched/device-motion`, `motion`, `headphone/motion`,
/// `recorder/accelerometer`) decode their samples in C++ into flat buffers and build the models in
/// Swift; the low-rate streams read their top-level members through the same call. Unknown members
/// are ignored, duplicate keys resolve to the first, a missing required member or a wrong type is a
/// ``PayloadProblem`` naming the member (and the sample index in a batch).
///
/// ```swift
/// switch FrameDecoder.decodeJSON(payload, stream: .batchedAccelerometer) {
/// case .success(let frame): …            // .batchedAccelerometer(AccelerometerBatch)
/// case .failure(let problem): problem.detail   // "samples[412].acceleration.z: not a number"
/// }
/// ```
///
/// Pure and thread-safe: no I/O, no clock; the C side keeps one parser per thread.
public enum FrameDecoder {
    /// Decodes a payload in the given encoding; the one place where encodings are dispatched.
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - encoding: the encoding its content type selected.
    ///   - stream: the stream its topic named.
    /// - Returns: the decoded frame, or why it cannot be decoded (`unsupportedEncoding` for a
    ///   binary frame on a stream that only takes JSON).
    public static func decode(_ payload: [UInt8], encoding: PayloadEncoding, stream: InboundStream) -> Result<DecodedFrame, PayloadProblem> {
        switch encoding {
        case .json:
            decodeJSON(payload, stream: stream)
        case .protobuf:
            ProtobufFrameDecoder.decode(payload, stream: stream)
        }
    }

    /// Decodes a JSON payload of `stream`.
    /// - Parameters:
    ///   - payload: UTF-8 JSON text.
    ///   - stream: the stream the payload was published on; it decides the expected shape.
    /// - Returns: the stream's model with the frame's sequence, or the first problem found.
    public static func decodeJSON(_ payload: [UInt8], stream: InboundStream) -> Result<DecodedFrame, PayloadProblem> {
        // An array's capacity is allocated memory; the transport's payload arrays keep simdjson's
        // read-ahead there, so the parser reads them where they are instead of copying them.
        payload.withUnsafeBytes { decodeJSON($0, readable: payload.capacity, stream: stream) }
    }

    /// Decodes a JSON payload of `stream` from borrowed memory.
    /// - Parameters:
    ///   - payload: UTF-8 JSON text; only read during the call.
    ///   - stream: the stream the payload was published on; it decides the expected shape.
    /// - Returns: the stream's model with the frame's sequence, or the first problem found.
    public static func decodeJSON(_ payload: UnsafeRawBufferPointer, stream: InboundStream) -> Result<DecodedFrame, PayloadProblem> {
        decodeJSON(payload, readable: payload.count, stream: stream)
    }

    /// Decodes a JSON payload of `stream` after which `readable - payload.count` more bytes may be
    /// read (their content is ignored): with `WG_JSON_READ_AHEAD` of them it is parsed in place.
    static func decodeJSON(_ payload: UnsafeRawBufferPointer, readable: Int, stream: InboundStream) -> Result<DecodedFrame, PayloadProblem> {
        let text = JSONText(bytes: payload, readable: readable)
        return Result { () throws(PayloadProblem) -> DecodedFrame in
            switch stream {
            case .batchedAccelerometer: .batchedAccelerometer(try accelerometerBatch(text))
            case .batchedDeviceMotion: .batchedDeviceMotion(try deviceMotionBatch(text))
            case .motion: .motion(try deviceMotionBatch(text))
            case .headphoneMotion: .headphoneMotion(try deviceMotionBatch(text))
            case .recorderAccelerometer: .recorderAccelerometer(try recordedAccelerometerChunk(text))
            case .hello, .status, .authorization, .workout, .headphoneConnection, .submersionEvent, .submersionMeasurement,
                .submersionTemperature, .pedometerData, .pedometerEvent, .altimeter:
                try event(text, stream: stream)
            }
        }
    }
}
