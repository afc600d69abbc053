/// A change of the app's motion authorization (`authorization` stream).
public struct AuthorizationChange: Sendable, Equatable, Hashable {
    /// The new authorization status.
    public var status: AuthorizationStatus
    /// When it changed, Unix epoch seconds.
    public var date: Double

    /// Creates an authorization change.
    /// - Parameters:
    ///   - status: the new status.
    ///   - date: Unix epoch seconds.
    public init(status: AuthorizationStatus, date: Double) {
        self.status = status
        self.date = date
    }
}
