extension DeviceMotion: ContractJSONWritable {
    /// Writes the contract's DeviceMotion object:
    /// `{"timestamp","attitude":{x,y,z,w},"rotationRate":{x,y,z},"gravity":{x,y,z},
    /// "userAcceleration":{x,y,z},"sensorLocation","magneticField"?,"heading"?}`.
    /// `sensorLocation` is always written; `magneticField` and `heading` only when present.
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("timestamp", timestamp)
            writer.objectField("attitude", attitude)
            writer.objectField("rotationRate", rotationRate)
            writer.objectField("gravity", gravity)
            writer.objectField("userAcceleration", userAcceleration)
            writer.enumField("sensorLocation", sensorLocation)
            if let magneticField { writer.objectField("magneticField", magneticField) }
            writer.field("heading", heading)
        }
    }
}
