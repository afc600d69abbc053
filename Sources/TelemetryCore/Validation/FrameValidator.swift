/// Checks a ``DecodedFrame`` against the contract's rules and ``ValidationLimits``: finite numbers,
/// physical bounds, timestamps, batch lengths.
///
/// Runs after decoding, whatever the encoding, so a binary decoder that can produce NaN or an
/// empty batch is held to the same rules as JSON. The first problem found is returned, with the
/// member's path and the sample index (`samples[12].acceleration: magnitude 70 g exceeds 64 g`).
/// Pure: no I/O, no clock, no allocation unless a problem is reported.
public enum FrameValidator {
    /// Finds the first rule the frame breaks.
    /// - Parameters:
    ///   - frame: a decoded frame.
    ///   - limits: the bounds to apply; defaults to the documented ones.
    /// - Returns: nil when the frame is valid, else the problem.
    public static func validate(_ frame: DecodedFrame, limits: ValidationLimits = ValidationLimits()) -> PayloadProblem? {
        let rules = ValidationRules(limits: limits)
        do throws(PayloadProblem) {
            try rules.check(frame)
            return nil
        } catch {
            return error
        }
    }
}
