extension SampleBatch where Sample: ContractJSONWritable {
    /// Writes `{"sequence"?:n,"samples":[…]}`, the payload of `batched/*`, `motion` and
    /// `headphone/motion`.
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.arrayField("samples", samples)
        }
    }
}
