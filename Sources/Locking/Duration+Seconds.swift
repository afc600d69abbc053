extension Duration {
    /// The duration in seconds, as a `Double` (for logs, metrics and configuration values).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
