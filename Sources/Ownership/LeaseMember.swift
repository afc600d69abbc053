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
    /// The name the run's session with its transport resumes under, recorded with its row and
    /// handed back by an adoption, so that the adopter's stand-in resumes that session. Opaque
    /// here: the ownership never reads it (the gateway gives its `mqtt.clientId`). Nil where
    /// nobody adopts (tests of the rules).
    public var session: String?
    /// The earlier run of the same name this process knows to be dead, because it now holds what
    /// that run held while alive (the lock of the journal file they share): it may register in
    /// place of that run's row at once, live or not. Nil: it registers only once no other run's
    /// row is live (names are one live run each, ``InstanceNameInUse``).
    public var succeeds: String?

    /// An instance run.
    public init(name: String, incarnation: String, draining: Bool = false, session: String? = nil, succeeds: String? = nil) {
        self.name = name
        self.incarnation = incarnation
        self.draining = draining
        self.session = session
        self.succeeds = succeeds
    }
}
