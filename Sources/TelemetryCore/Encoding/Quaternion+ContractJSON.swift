extension Quaternion: ContractJSONWritable {
    /// Writes `{"x":…,"y":…,"z":…,"w":…}` (w scalar).
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("x", x)
            writer.field("y", y)
            writer.field("z", z)
            writer.field("w", w)
        }
    }
}
