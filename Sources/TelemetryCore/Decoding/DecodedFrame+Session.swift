extension DecodedFrame {
    /// A `batched/*` frame's first and last sample `timestamp` (seconds since boot), for the
    /// workout session's end grace; nil for other streams and empty batches.
    public var batchTimestamps: (first: Double, last: Double)? {
        switch self {
        case .batchedAccelerometer(let batch):
            guard let first = batch.samples.first, let last = batch.samples.last else { return nil }
            return (first.timestamp, last.timestamp)
        case .batchedDeviceMotion(let batch):
            guard let first = batch.samples.first, let last = batch.samples.last else { return nil }
            return (first.timestamp, last.timestamp)
        default:
            return nil
        }
    }

    /// Whether the frame is a `workout` frame that pauses or ends the session.
    public var stopsWorkout: Bool {
        if case .workout(let event, _) = self { return event.state != .running }
        return false
    }
}
