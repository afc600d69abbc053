import TelemetryCore

/// Decodes a JSON text for tests.
func decode(_ json: String, _ stream: InboundStream) -> Result<DecodedFrame, PayloadProblem> {
    FrameDecoder.decodeJSON(Array(json.utf8), stream: stream)
}

/// The problem's detail, or nil when `json` decodes.
func decodingDetail(_ json: String, _ stream: InboundStream) -> String? {
    if case .failure(let problem) = decode(json, stream) { return problem.detail }
    return nil
}

extension Result {
    /// The success value, or nil.
    var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
