import Logging
import PostgresNIO

/// The shared store's schema as a versioned list of migrations, applied in one transaction
/// under an advisory lock, so instances starting together apply each exactly once
/// (`wg_schema_migrations` records what was applied).
enum PostgresSchema {
    /// `pg_advisory_xact_lock` keys of the gateway ("WGSCHEMA", "WGPARTIT", "WGPRUNE_" as bytes).
    static let migrationLock: Int64 = 0x5747_5343_4845_4D41
    static let partitionLock: Int64 = 0x5747_5041_5254_4954
    static let pruneLock: Int64 = 0x5747_5052_554E_455F
    /// Held (per session, tried) by the instance pruning the event history ("WGHISTPR").
    static let historyPruneLock: Int64 = 0x5747_4849_5354_5052

    /// Each migration's statements, version 1 first. Append only: an applied version never changes.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE recorder_device (
                key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name text NOT NULL UNIQUE,
                samples bigint NOT NULL DEFAULT 0,
                next_tremor_minute double precision
            )
            """,
            // One partition per hour of start_date (created on demand); the partition key is part
            // of the primary key, as PostgreSQL requires.
            """
            CREATE TABLE recorded_sample (
                device bigint NOT NULL,
                identifier bigint NOT NULL,
                sample_time double precision NOT NULL,
                start_date double precision NOT NULL,
                x double precision NOT NULL,
                y double precision NOT NULL,
                z double precision NOT NULL,
                PRIMARY KEY (device, identifier, sample_time, start_date)
            ) PARTITION BY RANGE (start_date)
            """,
            "CREATE INDEX recorded_sample_by_date ON recorded_sample (device, start_date)",
            // Samples before the cut-off may still sit in the partition the cut-off falls in:
            // every read starts at the cut-off, so answers are exact.
            "CREATE TABLE recorder_horizon (id integer PRIMARY KEY CHECK (id = 1), cutoff double precision NOT NULL)",
            "INSERT INTO recorder_horizon VALUES (1, '-Infinity')",
            """
            CREATE TABLE device_owner (
                device text PRIMARY KEY,
                epoch bigint NOT NULL DEFAULT 0,
                instance text NOT NULL DEFAULT '',
                last_seen double precision,
                snapshot bytea
            )
            """,
        ],
        // 2: every claim tells the other instances at once (docs/scale-out.md, *Fencing*): a
        // claim (a new epoch) notifies `wg_device_claims` with the device, the epoch and the
        // claiming instance as JSON. Snapshot writes (epoch unchanged) and unfenced inserts
        // (epoch 0) notify nothing. NOTIFY is delivered on commit, in commit order.
        [
            """
            CREATE FUNCTION wg_notify_device_claim() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.epoch > 0 AND (TG_OP = 'INSERT' OR NEW.epoch IS DISTINCT FROM OLD.epoch) THEN
                    PERFORM pg_notify('wg_device_claims', json_build_object('device', NEW.device, 'epoch', NEW.epoch, 'instance', NEW.instance)::text);
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER device_owner_claimed AFTER INSERT OR UPDATE ON device_owner
            FOR EACH ROW EXECUTE FUNCTION wg_notify_device_claim()
            """,
        ],
        // 3: ownership leases (docs/scale-out.md, *Ownership*). One row per live instance run and
        // one per ownership partition, all 1,024 made here. Every expiry is judged by the
        // server's clock_timestamp() inside the single statement that compares it. A change of a
        // partition's holder (its epoch) notifies `wg_partition_changes` once, with the partition,
        // epoch and holder as JSON; renewals and offers notify nothing.
        [
            """
            CREATE TABLE gateway_instance (
                name text PRIMARY KEY,
                incarnation text NOT NULL,
                draining boolean NOT NULL DEFAULT false,
                started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                renewed_at timestamptz NOT NULL,
                expires_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE ownership_partition (
                partition integer PRIMARY KEY,
                owner text,
                incarnation text,
                epoch bigint NOT NULL DEFAULT 0,
                expires_at timestamptz NOT NULL DEFAULT '-infinity',
                offered_to text
            )
            """,
            "INSERT INTO ownership_partition (partition) SELECT generate_series(0, 1023)",
            // Device snapshots by partition: a gained partition's devices are listed from here,
            // so no instance keeps a list of every device.
            """
            CREATE TABLE device_state (
                device text PRIMARY KEY,
                partition integer NOT NULL,
                epoch bigint NOT NULL,
                last_seen double precision NOT NULL,
                snapshot bytea NOT NULL
            )
            """,
            "CREATE INDEX device_state_by_partition ON device_state (partition)",
            """
            CREATE FUNCTION wg_notify_partition_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.epoch IS DISTINCT FROM OLD.epoch THEN
                    PERFORM pg_notify('wg_partition_changes', json_build_object('partition', NEW.partition, 'epoch', NEW.epoch, 'owner', NEW.owner)::text);
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER ownership_partition_changed AFTER UPDATE ON ownership_partition
            FOR EACH ROW EXECUTE FUNCTION wg_notify_partition_change()
            """,
        ],
        // 4: the event history (docs/history.md): derived events by day of event time (daily
        // partitions attached on demand), keyed by (event time, event id) so a replayed frame's
        // events are not written twice (the partition key must be part of the key). Partitions
        // wholly before the horizon are detached concurrently and dropped; reads start at it.
        [
            """
            CREATE TABLE event_history (
                event_time timestamptz NOT NULL,
                event_id text NOT NULL,
                device text NOT NULL,
                family text NOT NULL,
                payload jsonb NOT NULL,
                PRIMARY KEY (event_time, event_id)
            ) PARTITION BY RANGE (event_time)
            """,
            "CREATE INDEX event_history_by_device ON event_history (device, family, event_time)",
            "CREATE TABLE event_history_horizon (id integer PRIMARY KEY CHECK (id = 1), cutoff timestamptz NOT NULL)",
            "INSERT INTO event_history_horizon VALUES (1, '-infinity')",
        ],
        // 5: devices made known by an instance that no longer held their partition (epoch -1,
        // `PostgresLeaseStore.save`) are found by their partition's holder through this index,
        // a handful of rows at a time, however many devices the partition has.
        ["CREATE INDEX device_state_made_known ON device_state (partition) WHERE epoch < 0"],
        // 6: adoption of a dead instance (docs/scale-out.md, *A death: the adoption and the
        // stand-in*): the client id its broker sessions go by, the instance that adopted it,
        // until when, and the run its stand-in registers under. While an adoption is live
        // nobody else takes the dead instance's partitions, and a restart of its name waits.
        [
            """
            ALTER TABLE gateway_instance ADD COLUMN client_id text, ADD COLUMN adopted_by text, ADD COLUMN adopted_until timestamptz, ADD COLUMN stand_in text
            """
        ],
        // 7: the output ledger (docs/scale-out.md, *Fenced outputs*): a clustered instance
        // publishes an output only once it recorded it here under its partition's lease, so a
        // holder that lost the lease publishes nothing more and an output is published once
        // whoever derived it. Rows are kept for `PostgresLeaseStore` callers' retention, then pruned.
        [
            """
            CREATE TABLE gateway_output (
                topic text NOT NULL,
                event_id text NOT NULL,
                partition integer NOT NULL,
                epoch bigint NOT NULL,
                recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                PRIMARY KEY (topic, event_id)
            )
            """,
            "CREATE INDEX gateway_output_by_time ON gateway_output (recorded_at)",
        ],
        // 8: since when an instance's row has been live without a gap (docs/scale-out.md, *A
        // death*): an instance adopts only a row that expired while its own was live, so after
        // a store outage that let every row run out, nobody adopts a live instance.
        ["ALTER TABLE gateway_instance ADD COLUMN live_since timestamptz NOT NULL DEFAULT clock_timestamp()"],
        // 9: the recording run's number of the output's batch entry (OutputKey.queueEntry): a
        // statement retried after its answer was lost finds its own records by it, so their
        // outputs are published instead of withheld as another holder's.
        ["ALTER TABLE gateway_output ADD COLUMN queue_entry bigint NOT NULL DEFAULT 0"],
        // 10: the epoch a key column of the leases (docs/scale-out.md, *What rests on what*): an
        // UPDATE that moves it (a take, an accept, an adoption) then locks the row `FOR UPDATE`,
        // which waits for the `FOR KEY SHARE` of the fenced writes in flight, while a renewal or
        // an offer (no key column changed) locks it only `FOR NO KEY UPDATE` and waits for none
        // of them: a busy store does not delay the heartbeat.
        ["CREATE UNIQUE INDEX ownership_partition_epoch ON ownership_partition (partition, epoch)"],
    ]

    /// The channel every change of a partition's holder is notified on (migration 3).
    static let partitionChannel = "wg_partition_changes"

    /// The channel every claim is notified on (migration 2), as JSON
    /// `{"device": …, "epoch": …, "instance": …}` (``DeviceClaimNotice``).
    static let claimChannel = "wg_device_claims"

    /// The name of partition `number` of a table partitioned by time: `<prefix><number>`, or
    /// `<prefix>m<-number>` before 1970 (`recorded_sample_h<hour>`, `event_history_d<day>`).
    static func partitionName(_ prefix: String, _ number: Int64) -> String { number < 0 ? "\(prefix)m\(-number)" : "\(prefix)\(number)" }

    /// The number of the partition named `name` (see ``partitionName(_:_:)``), nil for another name.
    static func partitionNumber(_ prefix: String, _ name: String) -> Int64? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        return rest.hasPrefix("m") ? Int64(rest.dropFirst()).map { -$0 } : Int64(rest)
    }

    /// Brings the schema up to date.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS wg_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.query("SELECT version FROM wg_schema_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            for (index, statements) in migrations.enumerated() where !applied.contains(index + 1) {
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO wg_schema_migrations (version) VALUES (\(index + 1))", logger: logger)
                logger.notice("store: applied schema migration \(index + 1)")
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}
