import Ownership
import PostgresNIO

/// The ownership leases in PostgreSQL (schema migration 3; docs/scale-out.md, *Ownership*):
/// `gateway_instance` rows renewed by heartbeats, 1,024 `ownership_partition` leases, and the
/// device snapshots fenced by their partition's epoch. Every statement is a transaction of its
/// own and judges expiry by the server's `clock_timestamp()`, so no instance's clock decides who
/// holds what.
public final class PostgresLeaseStore: LeaseStoring {
    let store: PostgresStoreClient
    /// The run's own connections for the lease statements (nil: the data pool). The ledger's
    /// statements (``OutputLedger``) always go to the data pool.
    private let lane: PostgresStoreLane?
    /// Seconds after an instance's row expired during which it may be adopted, and nobody else
    /// takes its partitions unless it has no row any more.
    private let adoptionWindow: Double

    /// The leases in the store behind `store`.
    /// - Parameter lane: the connections the lease statements go on (nil: the data pool).
    /// - Parameter adoptionWindow: seconds a dead instance may be adopted in after its row
    ///   expired (a couple of heartbeats: every live instance tries at each of its own); its
    ///   partitions are taken only after it, if nobody adopted it. 0: no adoption.
    public init(_ store: PostgresStoreClient, lane: PostgresStoreLane? = nil, adoptionWindow: Double = 0) {
        self.store = store
        self.lane = lane
        self.adoptionWindow = adoptionWindow
    }

    /// The channel a change of a partition's holder is notified on, as JSON
    /// `{"partition": …, "epoch": …, "owner": …}`.
    public static var channel: String { PostgresSchema.partitionChannel }

    public func heartbeat(_ member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        let (leases, refusal) = try await store.withConnection(on: lane) { connection in
            // The instance row and the renewal in one statement: a data-modifying WITH runs to
            // completion whether or not the outer query reads it. A name is one live run's: the
            // row is this run's, or its run is dead by the store's clock (expired), or it is the
            // earlier run this process proved dead (`succeeds`). A name under a live adoption
            // registers only as its stand-in (whose heartbeats keep the adoption live). A run
            // refused gets the row as it was (partition -1: the adopter; -2: the live run).
            var leases: [Int: Int64] = [:]
            var refusal: (Int32, Int64, String?, String?, String?, Double?)?
            for try await row in try await connection.query(
                """
                WITH me AS (
                    INSERT INTO gateway_instance (name, incarnation, draining, renewed_at, expires_at, client_id)
                    VALUES (\(member.name), \(member.incarnation), \(member.draining), clock_timestamp(), clock_timestamp() + make_interval(secs => \(ttl)), \(member.session))
                    ON CONFLICT (name) DO UPDATE SET
                        started_at = CASE WHEN gateway_instance.incarnation = excluded.incarnation THEN gateway_instance.started_at ELSE clock_timestamp() END,
                        live_since = CASE WHEN gateway_instance.incarnation = excluded.incarnation AND gateway_instance.expires_at >= clock_timestamp()
                            THEN gateway_instance.live_since ELSE clock_timestamp() END,
                        incarnation = excluded.incarnation, draining = excluded.draining, renewed_at = excluded.renewed_at, expires_at = excluded.expires_at,
                        client_id = excluded.client_id,
                        adopted_by = CASE WHEN gateway_instance.stand_in = excluded.incarnation THEN gateway_instance.adopted_by END,
                        adopted_until = CASE WHEN gateway_instance.stand_in = excluded.incarnation THEN greatest(gateway_instance.adopted_until, excluded.expires_at) END,
                        stand_in = CASE WHEN gateway_instance.stand_in = excluded.incarnation THEN gateway_instance.stand_in END
                    WHERE (gateway_instance.adopted_until IS NULL OR gateway_instance.adopted_until < clock_timestamp()
                            OR gateway_instance.stand_in = excluded.incarnation)
                        AND (gateway_instance.incarnation = excluded.incarnation OR gateway_instance.stand_in = excluded.incarnation
                            OR gateway_instance.expires_at < clock_timestamp() OR gateway_instance.incarnation = \(member.succeeds))
                    RETURNING 1
                ), renewed AS (
                    UPDATE ownership_partition SET expires_at = clock_timestamp() + make_interval(secs => \(ttl))
                    WHERE owner = \(member.name) AND incarnation = \(member.incarnation) AND EXISTS (SELECT 1 FROM me)
                    RETURNING partition, epoch
                )
                SELECT partition, epoch, NULL::text, NULL::text, NULL::text, NULL::float8 FROM renewed
                UNION ALL
                SELECT CASE WHEN adopted_until >= clock_timestamp() THEN -1 ELSE -2 END,
                    (extract(epoch FROM renewed_at) * 1000000)::int8,
                    CASE WHEN adopted_until >= clock_timestamp() THEN adopted_by ELSE incarnation END,
                    client_id, to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                    extract(epoch FROM expires_at - clock_timestamp())::float8
                FROM gateway_instance WHERE name = \(member.name) AND NOT EXISTS (SELECT 1 FROM me)
                """, logger: store.logger
            ).decode((Int32, Int64, String?, String?, String?, Double?).self) {
                if row.0 < 0 { refusal = row } else { leases[Int(row.0)] = row.1 }
            }
            return (leases, refusal)
        }
        if let (kind, renewedAt, holder, session, startedAt, expiresIn) = refusal {
            if kind == -1 { throw InstanceNameAdopted(adopter: holder ?? "?") }
            throw InstanceNameInUse(
                name: member.name, incarnation: holder ?? "?", session: session, startedAt: startedAt ?? "?", renewedAt: renewedAt, expiresIn: expiresIn ?? 0)
        }
        return leases
    }

    public func view() async throws -> LeaseView {
        try await store.withConnection(on: lane) { connection in
            var view = LeaseView(instances: [:], leases: [:])
            for try await (kind, name, incarnation, epoch, flag, offeredTo, partition, released) in try await connection.query(
                """
                WITH t AS (SELECT clock_timestamp() AS now)
                SELECT 'i', name, NULL::text, 0::int8, draining, NULL::text, -1, false FROM gateway_instance, t WHERE expires_at > t.now
                UNION ALL
                SELECT 'p', owner, incarnation, epoch, expires_at <= t.now, offered_to, partition, expires_at = '-infinity' FROM ownership_partition, t
                """, logger: store.logger
            ).decode((String, String?, String?, Int64, Bool, String?, Int32, Bool).self) {
                if kind == "i", let name {
                    view.instances[name] = flag
                } else {
                    view.leases[Int(partition)] = LeaseView.Lease(
                        partition: Int(partition), owner: name, incarnation: incarnation, epoch: epoch, expired: flag, offeredTo: offeredTo,
                        released: released)
                }
            }
            return view
        }
    }

    public func take(_ partitions: [Int], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        guard !partitions.isEmpty else { return [:] }
        let numbers = partitions.map { Int32($0) }
        return try await store.withConnection(on: lane) { connection in
            // An earlier run of the same name is dead (names are unique): its leases go at once,
            // unless another instance adopted the name and this is not its stand-in. An expired
            // lease of another instance goes only when that instance's row is gone, or nobody
            // adopted it within the adoption window after its row expired (or, adopted before,
            // after its adoption ran out: a stand-in that died is adopted again), or its
            // adoption lapsed. The owners' rows are locked (`FOR SHARE`) so that a take and an adoption
            // judging the same row come one after the other: one of them wins, whole. Only the
            // run registered under its name takes anything: a run replaced while it was frozen
            // between its heartbeat and its take must not take its successor's leases back.
            try await Self.leases(
                connection.query(
                    """
                    WITH owners AS (
                        SELECT name, incarnation, expires_at, adopted_until, stand_in FROM gateway_instance
                        WHERE name IN (SELECT owner FROM ownership_partition WHERE partition = ANY(\(numbers)::int4[]) AND owner IS NOT NULL)
                        FOR SHARE
                    )
                    UPDATE ownership_partition p SET owner = \(member.name), incarnation = \(member.incarnation), epoch = epoch + 1, offered_to = NULL,
                        expires_at = clock_timestamp() + make_interval(secs => \(ttl))
                    WHERE p.partition = ANY(\(numbers)::int4[])
                        AND EXISTS (SELECT 1 FROM gateway_instance me WHERE me.name = \(member.name) AND me.incarnation = \(member.incarnation))
                        AND (p.owner IS NULL
                            OR (p.owner = \(member.name) AND p.incarnation <> \(member.incarnation) AND NOT EXISTS (
                                SELECT 1 FROM owners o WHERE o.name = p.owner AND o.adopted_until >= clock_timestamp()
                                    AND o.stand_in IS DISTINCT FROM \(member.incarnation)))
                            OR (p.owner <> \(member.name) AND p.expires_at < clock_timestamp() AND NOT EXISTS (
                                SELECT 1 FROM owners o WHERE o.name = p.owner AND (o.adopted_until >= clock_timestamp()
                                    OR ((o.incarnation = p.incarnation OR o.stand_in = p.incarnation)
                                        AND greatest(o.expires_at, o.adopted_until) > clock_timestamp() - make_interval(secs => \(adoptionWindow)))))))
                    RETURNING partition, epoch
                    """, logger: store.logger))
        }
    }

    public func offer(_ partitions: [Int: Int64], to successor: String, by member: LeaseMember) async throws {
        guard !partitions.isEmpty else { return }
        let (numbers, epochs) = Self.columns(partitions)
        _ = try await store.withConnection(on: lane) { connection in
            try await connection.query(
                """
                UPDATE ownership_partition p SET offered_to = \(successor)
                FROM unnest(\(numbers)::int4[], \(epochs)::int8[]) AS o(partition, epoch)
                WHERE p.partition = o.partition AND p.epoch = o.epoch AND p.owner = \(member.name) AND p.incarnation = \(member.incarnation)
                """, logger: store.logger)
        }
    }

    public func accept(_ partitions: [Int: Int64], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        guard !partitions.isEmpty else { return [:] }
        let (numbers, epochs) = Self.columns(partitions)
        return try await store.withConnection(on: lane) { connection in
            try await Self.leases(
                connection.query(
                    """
                    UPDATE ownership_partition p SET owner = \(member.name), incarnation = \(member.incarnation), epoch = p.epoch + 1, offered_to = NULL,
                        expires_at = clock_timestamp() + make_interval(secs => \(ttl))
                    FROM unnest(\(numbers)::int4[], \(epochs)::int8[]) AS o(partition, epoch)
                    WHERE p.partition = o.partition AND p.epoch = o.epoch AND p.offered_to = \(member.name)
                        AND EXISTS (SELECT 1 FROM gateway_instance me WHERE me.name = \(member.name) AND me.incarnation = \(member.incarnation))
                    RETURNING p.partition, p.epoch
                    """, logger: store.logger))
        }
    }

    public func leave(_ member: LeaseMember) async throws {
        _ = try await store.withConnection(on: lane) { connection in
            try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM gateway_instance WHERE name = \(member.name) AND incarnation = \(member.incarnation) RETURNING 1
                )
                UPDATE ownership_partition SET expires_at = '-infinity', offered_to = NULL
                WHERE owner = \(member.name) AND incarnation = \(member.incarnation)
                """, logger: store.logger)
        }
    }

    public func adopt(by adopter: String, standIn: String, ttl: Double) async throws -> LeaseMember? {
        guard adoptionWindow > 0 else { return nil }
        return try await store.withConnection(on: lane) { connection in
            // The oldest adoptable row, locked, skipped when another adopter or a take holds it.
            // A stand-in that died with its adopter is adoptable like any dead run, within the
            // window after its row and its adoption ran out, whether it registered (the row is
            // its run's) or not yet (its leases carry its incarnation, the row the dead run's):
            // the next stand-in continues those leases and resumes the same broker session,
            // where every frame nobody acknowledged waits.
            // Only an adopter whose own row is live, and was live without a gap when that row
            // expired: after a store outage that let every row run out, the first instance back
            // (live again only since) adopts nobody, so live instances never adopt each other.
            // Within the window the take statement leaves the row's leases alone, so every lease
            // its run held is still its own when it is adopted. Those leases pass to the stand-in
            // in the same statement, under the next epoch: it continues the run (same name, same
            // broker session), so the partition's holder does not change, but another run
            // publishes from now on, and two runs never publish under one epoch (consumers keep
            // the greatest). The dead run is fenced by the incarnation and the epoch, which every
            // renewal, snapshot write and output record compares. A pending offer is withdrawn:
            // the stand-in makes its own.
            for try await (name, incarnation, session) in try await connection.query(
                """
                WITH dead AS (
                    SELECT d.name, d.incarnation, d.stand_in FROM gateway_instance d
                    WHERE d.expires_at < clock_timestamp() AND coalesce(d.adopted_until, '-infinity') < clock_timestamp()
                        AND greatest(d.expires_at, d.adopted_until) > clock_timestamp() - make_interval(secs => \(adoptionWindow))
                        AND d.name <> \(adopter)
                        AND EXISTS (SELECT 1 FROM gateway_instance me WHERE me.name = \(adopter) AND me.expires_at > clock_timestamp() AND me.live_since < d.expires_at)
                    ORDER BY greatest(d.expires_at, d.adopted_until) LIMIT 1
                    FOR UPDATE OF d SKIP LOCKED
                ), continued AS (
                    UPDATE ownership_partition p SET incarnation = \(standIn), offered_to = NULL, epoch = p.epoch + 1
                    FROM dead WHERE p.owner = dead.name AND (p.incarnation = dead.incarnation OR p.incarnation = dead.stand_in) AND p.expires_at > '-infinity'
                    RETURNING 1
                )
                UPDATE gateway_instance i SET adopted_by = \(adopter), stand_in = \(standIn),
                    adopted_until = clock_timestamp() + make_interval(secs => \(ttl))
                FROM dead WHERE i.name = dead.name AND i.incarnation = dead.incarnation
                RETURNING i.name, i.incarnation, i.client_id
                """, logger: store.logger
            ).decode((String, String, String?).self) {
                return LeaseMember(name: name, incarnation: incarnation, session: session)
            }
            return nil
        }
    }

    public func adopter(of member: LeaseMember) async throws -> String? {
        try await store.withConnection(on: lane) { connection in
            for try await adopter in try await connection.query(
                """
                SELECT adopted_by FROM gateway_instance
                WHERE name = \(member.name) AND adopted_by IS NOT NULL AND adopted_until >= clock_timestamp()
                """, logger: store.logger
            ).decode(String.self) {
                return adopter
            }
            return nil
        }
    }

    /// Writes the snapshots whose partition `member` still holds under the epoch each carries, in
    /// one statement that locks those leases (`FOR KEY SHARE`): a hand-over or take-over of the
    /// partition (which moves the epoch, a key column since migration 10) waits for the write,
    /// or the write finds the new epoch and overwrites nothing; a renewal waits for neither.
    /// A snapshot it may not write still leaves its device known: its row is inserted when the
    /// store has none (a device first seen around a hand-over, whose holder's write came after
    /// the accept), never overwritten, under epoch ``madeKnownEpoch``: the partition's holder
    /// takes it up with ``adoptMadeKnown(by:)`` (its listing of the partition may have come
    /// first), and a later listing or a lookup at the device's first frame finds it.
    /// - Returns: the devices written under their lease (not those only made known).
    public func save(_ snapshots: [LeasedSnapshot], by member: LeaseMember) async throws -> Set<String> {
        guard !snapshots.isEmpty else { return [] }
        let devices = snapshots.map(\.device)
        let partitions = snapshots.map { Int32($0.partition) }
        let epochs = snapshots.map(\.epoch)
        let dates = snapshots.map(\.lastSeen)
        let texts = snapshots.map(\.snapshot)
        return try await store.withConnection(on: lane) { connection in
            var written: Set<String> = []
            for try await device in try await connection.query(
                """
                WITH w AS (
                    SELECT * FROM unnest(\(devices)::text[], \(partitions)::int4[], \(epochs)::int8[], \(dates)::float8[], \(texts)::text[])
                        AS w(device, partition, epoch, last_seen, snapshot)
                ), lease AS (
                    SELECT partition, epoch FROM ownership_partition
                    WHERE owner = \(member.name) AND incarnation = \(member.incarnation) AND partition = ANY(\(partitions)::int4[])
                    FOR KEY SHARE
                ), written AS (
                    INSERT INTO device_state (device, partition, epoch, last_seen, snapshot)
                    SELECT w.device, w.partition, w.epoch, w.last_seen, convert_to(w.snapshot, 'UTF8')
                    FROM w JOIN lease ON lease.partition = w.partition AND lease.epoch = w.epoch
                    ON CONFLICT (device) DO UPDATE SET partition = excluded.partition, epoch = excluded.epoch, last_seen = excluded.last_seen,
                        snapshot = excluded.snapshot
                    RETURNING device
                ), known AS (
                    INSERT INTO device_state (device, partition, epoch, last_seen, snapshot)
                    SELECT w.device, w.partition, \(Self.madeKnownEpoch), w.last_seen, convert_to(w.snapshot, 'UTF8')
                    FROM w WHERE NOT EXISTS (SELECT 1 FROM lease WHERE lease.partition = w.partition AND lease.epoch = w.epoch)
                    ON CONFLICT (device) DO NOTHING
                )
                SELECT device FROM written
                """, logger: store.logger
            ).decode(String.self) {
                written.insert(device)
            }
            return written
        }
    }

    /// The epoch of a device row made known by an instance that could not write it under a
    /// lease (see ``save(_:by:)``): no lease has it, and single mode's unfenced rows (0) are not it.
    public static let madeKnownEpoch: Int64 = -1

    /// Takes up the devices of partitions `member` holds that another instance made known
    /// (``madeKnownEpoch``) after it lost their partition, in one statement that locks those
    /// leases: each row gets the partition's epoch, so each device is returned once, to the
    /// holder at the time (a hand-over waits for the statement, and its taker lists the
    /// partition after it).
    /// - Returns: the devices taken up.
    public func adoptMadeKnown(by member: LeaseMember) async throws -> [String] {
        try await store.withConnection(on: lane) { connection in
            var devices: [String] = []
            for try await device in try await connection.query(
                """
                WITH lease AS (
                    SELECT partition, epoch FROM ownership_partition
                    WHERE owner = \(member.name) AND incarnation = \(member.incarnation)
                    FOR KEY SHARE
                )
                UPDATE device_state AS d SET epoch = lease.epoch FROM lease
                WHERE d.epoch < 0 AND d.partition = lease.partition
                RETURNING d.device
                """, logger: store.logger
            ).decode(String.self) {
                devices.append(device)
            }
            return devices
        }
    }

    /// Writes snapshots without a lease (a single gateway on PostgreSQL owns every device).
    public func saveUnfenced(_ snapshots: [LeasedSnapshot]) async throws {
        guard !snapshots.isEmpty else { return }
        let devices = snapshots.map(\.device)
        let partitions = snapshots.map { Int32($0.partition) }
        let dates = snapshots.map(\.lastSeen)
        let texts = snapshots.map(\.snapshot)
        _ = try await store.withConnection(on: lane) { connection in
            try await connection.query(
                """
                INSERT INTO device_state (device, partition, epoch, last_seen, snapshot)
                SELECT w.device, w.partition, 0, w.last_seen, convert_to(w.snapshot, 'UTF8')
                FROM unnest(\(devices)::text[], \(partitions)::int4[], \(dates)::float8[], \(texts)::text[]) AS w(device, partition, last_seen, snapshot)
                ON CONFLICT (device) DO UPDATE SET partition = excluded.partition, epoch = excluded.epoch, last_seen = excluded.last_seen,
                    snapshot = excluded.snapshot
                """, logger: store.logger)
        }
    }

    /// The snapshots stored for the devices of `partition` (a gained partition's state), as
    /// device → JSON text.
    public func snapshots(in partition: Int) async throws -> [String: String] {
        try await store.withConnection(on: lane) { connection in
            var snapshots: [String: String] = [:]
            for try await (device, text) in try await connection.query(
                "SELECT device, convert_from(snapshot, 'UTF8') FROM device_state WHERE partition = \(Int32(partition))", logger: store.logger
            ).decode((String, String).self) {
                snapshots[device] = text
            }
            return snapshots
        }
    }

    private static func leases(_ rows: PostgresRowSequence) async throws -> [Int: Int64] {
        var leases: [Int: Int64] = [:]
        for try await (partition, epoch) in rows.decode((Int32, Int64).self) { leases[Int(partition)] = epoch }
        return leases
    }

    private static func columns(_ partitions: [Int: Int64]) -> ([Int32], [Int64]) {
        let sorted = partitions.sorted { $0.key < $1.key }
        return (sorted.map { Int32($0.key) }, sorted.map(\.value))
    }
}
