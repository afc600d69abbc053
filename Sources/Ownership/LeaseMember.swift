/// An instance as the store knows it.
public struct LeaseMember: Sendable, Equatable {
    /// The instance's name (`cluster.instance`), unique in the fleet.
    public var name: String
    /// This process's run of that name: leases taken by an earlier run of the same name (a
    /// process killed and restarted) are not renewed by this one; it takes them under a new epoch.
    public var incarnation: String
    /// Whether it is draining (a graceful stop): then it is left out of the assignment, so its
    /// partitions go to the others make-before-break.
    public var draining: Bool
    /// The `mqtt.clientId` its broker connections' ids begin with: an adopter's stand-in resumes
    /// its subscriber's session under the same id. Nil where nobody adopts (tests of the rules).
    public var clientID: String?
    /// The earlier run of the same name this process knows to be dead, because it now holds what
    /// that run held while alive (the lock of the journal file they share): it may register in
    /// place of that run's row at once, live or not. Nil: it registers only once no other run's
    /// row is live (names are one live run each, ``InstanceNameInUse``).
    public var succeeds: String?

    /// An instance run.
    public init(name: String, incarnation: String, draining: Bool = false, clientID: String? = nil, succeeds: String? = nil) {
        self.name = name
        self.incarnation = incarnation
        self.draining = draining
        self.clientID = clientID
        self.succeeds = succeeds
    }
}
