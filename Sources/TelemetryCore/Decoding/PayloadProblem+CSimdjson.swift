import CSimdjson

extension PayloadProblem {
    /// Converts a C decoder's failure.
    init(_ status: wg_decode_status, _ problem: wg_decode_problem) {
        let reason: Reason =
            switch status {
            case WG_DECODE_NOT_OBJECT: .notJSONObject
            case WG_DECODE_MISSING: .missingField
            case WG_DECODE_WRONG_TYPE: .wrongType
            default: .decoderFailure
            }
        self.init(reason, field: Self.text(problem.field), message: Self.text(problem.message))
    }

    /// The NUL-terminated UTF-8 text of a fixed-size C character array.
    private static func text<Storage>(_ storage: Storage) -> String {
        withUnsafeBytes(of: storage) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
