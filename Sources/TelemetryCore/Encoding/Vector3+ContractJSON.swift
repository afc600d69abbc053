extension Vector3: ContractJSONWritable {
    /// Writes `{"x":…,"y":…,"z":…}` (unit as the vector's: g, rad/s or µT).
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("x", x)
            writer.field("y", y)
            writer.field("z", z)
        }
    }
}
