/// The statements the leased ownership needs from the shared store (``LeasedOwnership``).
/// Expiry is judged by the store's clock, never an instance's: every statement that compares a
/// lease's end with now is one statement (one transaction) reading the server's
/// `clock_timestamp()`. PostgreSQL implements it (`PostgresLeaseStore`).
public protocol LeaseStoring: Sendable {
    /// Registers or refreshes `member`'s row with a time to live of `ttl` seconds and renews, in
    /// the same statement, every lease it holds under its incarnation (expired or not, as long
    /// as nobody took it).
    /// - Returns: the partitions it holds now, with their epochs.
    func heartbeat(_ member: LeaseMember, ttl: Double) async throws -> [Int: Int64]

    /// The live instances and every partition's lease, read in one statement.
    func view() async throws -> LeaseView

    /// Takes those of `partitions` that nobody holds or whose lease expired, under the next epoch.
    /// - Returns: the partitions taken, with their new epochs.
    func take(_ partitions: [Int], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64]

    /// Offers partitions `member` holds (partition → the epoch it holds) to `successor`, which
    /// takes them with ``accept(_:by:ttl:)`` once it has warmed up.
    func offer(_ partitions: [Int: Int64], to successor: String, by member: LeaseMember) async throws

    /// Takes partitions offered to `member` by compare-and-set: (holder, epoch, offered to
    /// `member`) → (`member`, epoch + 1). A partition whose epoch moved on is not taken.
    /// - Parameter partitions: partition → the epoch the offer was made under.
    /// - Returns: the partitions taken, with their new epochs.
    func accept(_ partitions: [Int: Int64], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64]

    /// Ends every lease `member` holds now (another instance may take them at once) and removes
    /// its row.
    func leave(_ member: LeaseMember) async throws

    /// Adopts one dead instance for `adopter`: an instance whose row expired within the store's
    /// adoption window and that nobody adopted, none of whose partitions another instance took,
    /// and only while `adopter`'s own row is live and was live without a gap when the dead one's
    /// expired (after a store outage that let every row run out, nobody adopts a live instance).
    /// Its leases pass to its stand-in (the same name, incarnation `standIn`) under the next
    /// epochs, in the same statement: the stand-in's first heartbeat holds them, and the dead run
    /// renews, writes and publishes nothing more. From then on nobody else takes its partitions and a
    /// restart of its name waits, while the stand-in keeps heartbeating, or for `ttl` seconds
    /// until it first does.
    /// - Returns: the adopted instance's last run, or nil when there is none to adopt.
    func adopt(by adopter: String, standIn: String, ttl: Double) async throws -> LeaseMember?

    /// The instance whose live adoption holds `member`'s name, or nil; reads, renews nothing (an
    /// instance that withholds its renewals because it cannot reach the broker asks it instead of
    /// heartbeating).
    func adopter(of member: LeaseMember) async throws -> String?
}

/// The heartbeat of a run whose name another instance adopted (its stand-in is running): the
/// store registered nothing and renewed nothing. The run holds no partition and waits until the
/// stand-in has left.
public struct InstanceNameAdopted: Error, CustomStringConvertible {
    /// The instance that adopted the name.
    public let adopter: String
    /// An answer naming the adopter.
    public init(adopter: String) { self.adopter = adopter }
    public var description: String { "this instance's name is adopted by \(adopter), whose stand-in finishes its work" }
}

/// The heartbeat of a run whose name another run holds live (names are one live run each): the
/// store registered nothing, renewed nothing and left the other run's row as it was.
/// ``LeasedOwnership`` waits while that row may belong to a dead run (it is not renewed), and
/// stops this run once it is (a second run under a live name, or a run replaced while it was
/// frozen or cut off from the store).
public struct InstanceNameInUse: Error, Equatable, CustomStringConvertible {
    /// The name both runs have.
    public let name: String
    /// The run holding it.
    public let incarnation: String
    /// That run's session name (``LeaseMember/session``), when it registered one.
    public let session: String?
    /// When that run first registered, by the store's clock (ISO 8601).
    public let startedAt: String
    /// That run's last renewal, by the store's clock, in microseconds: a later answer with a
    /// greater value means the run is alive.
    public let renewedAt: Int64
    /// Seconds until its row expires, by the store's clock.
    public let expiresIn: Double

    /// An answer naming the run that holds `name`.
    public init(name: String, incarnation: String, session: String?, startedAt: String, renewedAt: Int64, expiresIn: Double) {
        self.name = name
        self.incarnation = incarnation
        self.session = session
        self.startedAt = startedAt
        self.renewedAt = renewedAt
        self.expiresIn = expiresIn
    }

    public var description: String {
        "instance name \(name) is held by another live run (run \(incarnation), started \(startedAt), session \(session ?? "unknown")): cluster.instance must be unique among running instances"
    }
}
