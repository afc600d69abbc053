/// The gateway could not start; the message names the configuration key involved.
public struct GatewayStartError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
