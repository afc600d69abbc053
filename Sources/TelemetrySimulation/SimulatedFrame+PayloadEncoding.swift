import TelemetryCore

extension SimulatedFrame {
    /// The frame with its payload in `encoding`.
    ///
    /// The simulator generates the contract's JSON. For `.protobuf`, a high-rate frame
    /// (`batched/*`, `motion`, `headphone/motion`, `recorder/accelerometer`) is decoded with the
    /// gateway's own JSON decoder and written with ``ProtobufFrameEncoder``: the same models,
    /// sensor values rounded to float32 (docs/binary-encoding.md). Every other stream has no
    /// binary form and stays JSON, as a real device would send it.
    /// - Parameter encoding: the wanted encoding.
    /// - Returns: the re-encoded frame, or `self` when the stream has no form in `encoding`.
    public func encoded(as encoding: PayloadEncoding) -> SimulatedFrame {
        guard encoding != self.encoding, encoding == .protobuf, self.encoding == .json,
            let stream = InboundStream(rawValue: stream), stream.isHighRate,
            case .success(let model) = FrameDecoder.decodeJSON(payload, stream: stream),
            let binary = ProtobufFrameEncoder.encode(model)
        else { return self }
        var frame = self
        frame.payload = binary
        frame.encoding = .protobuf
        return frame
    }
}
