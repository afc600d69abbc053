/// A device bridge's presence, published on `gateway/{id}/connection`.
public enum ConnectionState: String, Sendable, CaseIterable, Codable {
    /// The bridge said it is online.
    case connected
    /// The bridge said it is offline (or its will did).
    case disconnected

    /// The `status` stream's `state` value that leads to this state (`online` or `offline`),
    /// published as the connection's `reason`.
    public var statusValue: String {
        switch self {
        case .connected: "online"
        case .disconnected: "offline"
        }
    }
}
