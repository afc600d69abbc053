extension RunSegmentDeriver {
    /// `gateway/{id}/pedometer/segment`, QoS 1, not retained.
    static func segmentMessage(_ segment: RunSegment, context: DerivationContext) -> OutboundMessage {
        var writer = JSONWriter(capacity: 448)
        segment.write(to: &writer, device: context.device)
        return OutboundMessage(.pedometerSegment, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `gateway/{id}/pedometer/workout`, QoS 1, not retained.
    static func workoutMessage(_ summary: RunWorkoutSummary, context: DerivationContext) -> OutboundMessage {
        var writer = JSONWriter(capacity: 512)
        summary.write(to: &writer, device: context.device)
        return OutboundMessage(.pedometerWorkout, of: context.device, in: context.scheme, payload: writer.bytes)
    }
}
