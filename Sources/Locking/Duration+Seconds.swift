extension Duration {
    /// The duration in seconds, as a `Double` (for logs, metrics and configuration values).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// `seconds` in whole nanoseconds (rounded), so that decimal steps add up exactly: 1.9 s and
    /// 0.1 s make 2 s, which `Duration.seconds(_: Double)`'s exact binary values do not (a
    /// manual clock advanced by both would stop just short of a deadline 2 s away).
    public static func roundedSeconds(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
