extension AccessUpdate {
    /// The update a decoded control frame carries, or nil for the other streams.
    /// - Parameters:
    ///   - frame: a decoded frame.
    ///   - retained: whether the broker delivered it from its retained store (matters for `hello`).
    public init?(_ frame: DecodedFrame, retained: Bool = false) {
        switch frame {
        case .hello(let descriptor, _): self = .hello(descriptor, retained: retained)
        case .authorization(let change, _): self = .authorization(change)
        case .workout(let event, _): self = .workout(event)
        default: return nil
        }
    }
}
