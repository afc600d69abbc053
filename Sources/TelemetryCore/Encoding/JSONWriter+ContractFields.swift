extension JSONWriter {
    /// Writes `"sequence": n` when the frame is numbered; the contract's optional frame counter.
    mutating func sequenceField(_ sequence: UInt64?) {
        if let sequence { field("sequence", sequence) }
    }

    /// Writes `"name": <object>` for a nested contract value.
    mutating func objectField(_ name: String, _ value: some ContractJSONWritable) {
        key(name)
        value.write(to: &self)
    }

    /// Writes `"name": [<object>, …]` for nested contract values.
    mutating func arrayField(_ name: String, _ elements: [some ContractJSONWritable]) {
        key(name)
        array { writer in
            for element in elements { element.write(to: &writer) }
        }
    }

    /// Writes `"name": "<case name>"` for a contract enum.
    mutating func enumField(_ name: String, _ value: some WireEnumeration) {
        field(name, value.name)
    }

    /// Writes `"name": "<case name>"` only when `value` is not nil.
    mutating func enumField(_ name: String, _ value: (some WireEnumeration)?) {
        if let value { field(name, value.name) }
    }
}
