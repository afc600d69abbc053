extension MagneticField: ContractJSONWritable {
    /// Writes `{"x":…,"y":…,"z":…,"accuracy":"high"}` (µT; accuracy as its case name).
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("x", field.x)
            writer.field("y", field.y)
            writer.field("z", field.z)
            writer.enumField("accuracy", accuracy)
        }
    }
}
