extension PedometerData {
    /// Writes the `pedometer/data` payload `{"startDate","endDate","numberOfSteps","distance"?,
    /// "floorsAscended"?,"floorsDescended"?,"currentPace"?,"currentCadence"?,"averageActivePace"?}`
    /// (m, floors, s/m, steps/s); absent optionals are omitted.
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.field("startDate", startDate)
            writer.field("endDate", endDate)
            writer.field("numberOfSteps", numberOfSteps)
            writer.field("distance", distance)
            writer.field("floorsAscended", floorsAscended)
            writer.field("floorsDescended", floorsDescended)
            writer.field("currentPace", currentPace)
            writer.field("currentCadence", currentCadence)
            writer.field("averageActivePace", averageActivePace)
        }
    }
}
