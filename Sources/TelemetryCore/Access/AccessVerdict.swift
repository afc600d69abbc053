/// The result of the access checks for one frame.
public enum AccessVerdict: Sendable, Equatable {
    /// The frame may reach the derivations. `maximumDepth` is the device's submersion depth
    /// limit in metres from its entitlements (40 with `submersion.full`, 6 with
    /// `submersion.shallow` alone), or nil without a submersion entitlement.
    case allowed(maximumDepth: Double?)
    /// The frame must be dropped and reported with `code` (whose ``GatewayErrorCode/cmError`` is
    /// the Core Motion raw value, where one exists) and a human-readable `detail`.
    case denied(code: GatewayErrorCode, detail: String)

    /// Whether the frame passed.
    public var isAllowed: Bool {
        if case .allowed = self { return true }
        return false
    }

    /// The failure code, or nil when allowed.
    public var code: GatewayErrorCode? {
        if case .denied(let code, _) = self { return code }
        return nil
    }

    /// The failure detail, or nil when allowed.
    public var detail: String? {
        if case .denied(_, let detail) = self { return detail }
        return nil
    }

    /// The Core Motion error of the failure (e.g. `CMErrorNotEntitled` 110), or nil when allowed
    /// or when Core Motion has none (`unknownDevice`).
    public var cmError: CMErrorCode? {
        code?.cmError.flatMap { CMErrorCode(rawValue: UInt32($0)) }
    }
}
