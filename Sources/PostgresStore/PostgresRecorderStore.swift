import Locking
import PostgresNIO
import RecorderStore
import TelemetryCore

/// The historical accelerometer store in PostgreSQL, shared by every instance of a cluster:
/// any instance answers any device's query (docs/recorder.md, *PostgreSQL*).
///
/// - Samples live in `recorded_sample`, range-partitioned by `start_date`, one partition per
///   hour (``partitionSeconds``), created before the first insert into it.
/// - Pruning drops the partitions wholly older than the cut-off (no deletes) and records the
///   cut-off; every read starts at it, so answers equal the SQLite store's.
/// - De-duplicated by (device, identifier, timestamp) like SQLite: the primary key also holds
///   `start_date` (a partitioned table's key must), which a re-sent sample repeats.
public final class PostgresRecorderStore: RecorderStoring {
    private let store: PostgresStoreClient
    /// Device names to their keys (a key never changes once given).
    private let keys = LockedState<[String: Int64]>([:])
    /// Partitions known to exist (hour numbers); forgotten when an insert finds one gone.
    private let partitions = LockedState<Set<Int64>>([])

    /// Seconds of `start_date` per partition.
    public static let partitionSeconds: Int64 = 3600

    /// The store behind `store`.
    public init(_ store: PostgresStoreClient) {
        self.store = store
    }

    /// The URL without its password.
    public var location: String { store.location }

    /// The server's clock: shared by every instance, so retention is cut on it.
    public func storeTime() async throws -> Double? { try await store.serverTime() }

    // MARK: Writing

    /// Stores a chunk's samples in one statement, skipping those already stored.
    public func insert(_ chunk: RecordedAccelerometerChunk, device: DeviceID) async throws -> RecorderInsertOutcome {
        guard !chunk.samples.isEmpty else { return RecorderInsertOutcome(inserted: 0, duplicates: 0) }
        let hours = Set(chunk.samples.map { Self.hour(of: $0.startDate) })
        let identifier = Int64(bitPattern: chunk.identifier)
        let times = chunk.samples.map(\.timestamp)
        let dates = chunk.samples.map(\.startDate)
        let xs = chunk.samples.map(\.acceleration.x)
        let ys = chunk.samples.map(\.acceleration.y)
        let zs = chunk.samples.map(\.acceleration.z)
        for attempt in 0..<2 {
            do {
                let inserted = try await store.withConnection { connection -> Int in
                    try await createPartitions(hours, on: connection)
                    let key = try await deviceKey(device, on: connection)
                    let rows = try await connection.query(
                        """
                        WITH added AS (
                            INSERT INTO recorded_sample (device, identifier, sample_time, start_date, x, y, z)
                            SELECT \(key), \(identifier), u.t, u.d, u.x, u.y, u.z
                            FROM unnest(\(times)::float8[], \(dates)::float8[], \(xs)::float8[], \(ys)::float8[], \(zs)::float8[]) AS u(t, d, x, y, z)
                            ON CONFLICT DO NOTHING RETURNING 1
                        ), counted AS (SELECT count(*) AS n FROM added)
                        UPDATE recorder_device SET samples = samples + counted.n FROM counted WHERE key = \(key) RETURNING counted.n
                        """, logger: store.logger)
                    var inserted = 0
                    for try await n in rows.decode(Int64.self) { inserted = Int(n) }
                    return inserted
                }
                return RecorderInsertOutcome(inserted: inserted, duplicates: chunk.samples.count - inserted)
            } catch let error as PostgresStoreError where attempt == 0 && error.sqlState == "23514" {
                // "no partition of relation found for row": another instance dropped a partition
                // this one remembered (data older than the window); make it again once.
                partitions.withLock { $0.subtract(hours) }
            }
        }
        throw PostgresStoreError("no partition accepts the chunk's dates")
    }

    /// Persists the first minute whose tremor result is not published yet.
    public func setNextTremorMinute(_ minute: Double, device: DeviceID) async throws {
        try await store.withConnection { connection in
            let key = try await deviceKey(device, on: connection)
            try await connection.query("UPDATE recorder_device SET next_tremor_minute = \(minute) WHERE key = \(key)", logger: store.logger)
        }
    }

    /// Drops the partitions wholly older than `cutoff` and records it as the start of every
    /// answer, then deletes the oldest samples of the fullest devices while more than
    /// `maximumSamples` are stored. `expired` counts the samples of the dropped partitions.
    public func prune(before cutoff: Double, maximumSamples: Int) async throws -> RecorderPruneOutcome {
        try await store.withTransaction { connection in
            let logger = store.logger
            var outcome = RecorderPruneOutcome()
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.pruneLock))", logger: logger)
            try await connection.query("UPDATE recorder_horizon SET cutoff = GREATEST(cutoff, \(cutoff))", logger: logger)
            var expiredHours: [Int64] = []
            for try await name in try await connection.query(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'recorded_sample'::regclass",
                logger: logger
            ).decode(String.self) {
                if let hour = Self.hour(ofPartition: name), Double((hour + 1) * Self.partitionSeconds) <= cutoff { expiredHours.append(hour) }
            }
            for hour in expiredHours.sorted() {
                let table = Self.partitionName(hour)
                var counts: [(Int64, Int64)] = []
                for try await row in try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT device, count(*) FROM \(table) GROUP BY device"), logger: logger
                ).decode((Int64, Int64).self) {
                    counts.append(row)
                }
                for (key, count) in counts {
                    try await connection.query("UPDATE recorder_device SET samples = samples - \(count) WHERE key = \(key)", logger: logger)
                    outcome.expired += Int(count)
                }
                try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(table)"), logger: logger)
                partitions.withLock { _ = $0.remove(hour) }
            }
            var total = try await Self.single(Int64.self, connection.query("SELECT COALESCE(SUM(samples), 0)::bigint FROM recorder_device", logger: logger)) ?? 0
            while total > maximumSamples {
                var fullest: (Int64, Int64)?
                for try await row in try await connection.query(
                    "SELECT key, samples FROM recorder_device ORDER BY samples DESC LIMIT 1", logger: logger
                ).decode((Int64, Int64).self) {
                    fullest = row
                }
                guard let (key, held) = fullest else { break }
                let excess = min(total - Int64(maximumSamples), held)
                guard excess > 0 else { break }
                // The date of the excess-th oldest sample bounds the delete (ties may take a few more).
                guard
                    let bound = try await Self.single(
                        Double.self,
                        connection.query(
                            "SELECT start_date FROM recorded_sample WHERE device = \(key) ORDER BY start_date LIMIT 1 OFFSET \(excess - 1)",
                            logger: logger))
                else { break }
                let deleted =
                    try await Self.single(
                        Int64.self,
                        connection.query(
                            """
                            WITH gone AS (DELETE FROM recorded_sample WHERE device = \(key) AND start_date <= \(bound) RETURNING 1)
                            SELECT count(*) FROM gone
                            """, logger: logger)) ?? 0
                outcome.overCapacity += Int(deleted)
                total -= deleted
                try await connection.query("UPDATE recorder_device SET samples = samples - \(deleted) WHERE key = \(key)", logger: logger)
                if deleted == 0 { break }
            }
            return outcome
        }
    }

    // MARK: Reading

    /// One page of a device's samples in `[from, to]` after `cursor`, from the pruning cut-off on.
    public func samples(
        of device: DeviceID, from: Double, to: Double, after cursor: StoredRecorderSample? = nil, limit: Int
    ) async throws -> [StoredRecorderSample] {
        try await store.withConnection { connection in
            guard let key = try await existingDeviceKey(device, on: connection) else { return [] }
            let start = max(from, try await horizon(on: connection))
            let rows: PostgresRowSequence
            if let cursor {
                let identifier = Int64(bitPattern: cursor.identifier)
                rows = try await connection.query(
                    """
                    SELECT identifier, sample_time, start_date, x, y, z FROM recorded_sample
                    WHERE device = \(key) AND start_date BETWEEN \(start) AND \(to)
                      AND (start_date, identifier, sample_time) > (\(cursor.sample.startDate), \(identifier), \(cursor.sample.timestamp))
                    ORDER BY start_date, identifier, sample_time LIMIT \(limit)
                    """, logger: store.logger)
            } else {
                rows = try await connection.query(
                    """
                    SELECT identifier, sample_time, start_date, x, y, z FROM recorded_sample
                    WHERE device = \(key) AND start_date BETWEEN \(start) AND \(to)
                    ORDER BY start_date, identifier, sample_time LIMIT \(limit)
                    """, logger: store.logger)
            }
            return try await Self.samples(rows)
        }
    }

    /// A device's samples in `[from, end)`, in order, from the pruning cut-off on.
    public func samples(of device: DeviceID, from: Double, before end: Double) async throws -> [RecordedAccelerometerSample] {
        try await store.withConnection { connection in
            guard let key = try await existingDeviceKey(device, on: connection) else { return [] }
            let start = max(from, try await horizon(on: connection))
            let rows = try await connection.query(
                """
                SELECT identifier, sample_time, start_date, x, y, z FROM recorded_sample
                WHERE device = \(key) AND start_date >= \(start) AND start_date < \(end) ORDER BY start_date, identifier, sample_time
                """, logger: store.logger)
            return try await Self.samples(rows).map(\.sample)
        }
    }

    /// The starts of the minutes in `[from, end)` holding a sample, jumping from sample to
    /// sample through the date index.
    public func minutesWithData(of device: DeviceID, from: Double, before end: Double) async throws -> [Double] {
        try await store.withConnection { connection in
            guard let key = try await existingDeviceKey(device, on: connection) else { return [] }
            var minutes: [Double] = []
            var next = max(from, try await horizon(on: connection))
            while next < end,
                let date = try await Self.single(
                    Double.self,
                    connection.query(
                        "SELECT MIN(start_date) FROM recorded_sample WHERE device = \(key) AND start_date >= \(next) AND start_date < \(end)",
                        logger: store.logger))
            {
                let minute = TremorMinuteSchedule.minute(containing: date)
                minutes.append(minute)
                next = minute + 60
            }
            return minutes
        }
    }

    /// The device's newest sample date (from the cut-off on) and its next tremor minute.
    public func deviceState(of device: DeviceID) async throws -> RecorderDeviceState? {
        try await store.withConnection { connection in
            var found: (Int64, Double?)?
            for try await row in try await connection.query(
                "SELECT key, next_tremor_minute FROM recorder_device WHERE name = \(device.rawValue)", logger: store.logger
            ).decode((Int64, Double?).self) {
                found = row
            }
            guard let (key, next) = found else { return nil }
            let start = try await horizon(on: connection)
            let newest = try await Self.single(
                Double.self,
                connection.query("SELECT MAX(start_date) FROM recorded_sample WHERE device = \(key) AND start_date >= \(start)", logger: store.logger))
            return RecorderDeviceState(newestSampleDate: newest, nextTremorMinute: next)
        }
    }

    /// Stored samples and devices, and the bytes of the sample partitions with their indexes.
    public func statistics() async throws -> RecorderStatistics {
        try await store.withConnection { connection in
            var result = RecorderStatistics(samples: 0, devices: 0, fileBytes: 0)
            for try await (samples, devices, bytes) in try await connection.query(
                """
                SELECT COALESCE(SUM(samples), 0)::bigint, COUNT(*) FILTER (WHERE samples > 0),
                  (SELECT COALESCE(SUM(pg_total_relation_size(inhrelid)), 0)::bigint FROM pg_inherits WHERE inhparent = 'recorded_sample'::regclass)
                FROM recorder_device
                """, logger: store.logger
            ).decode((Int64, Int64, Int64).self) {
                result = RecorderStatistics(samples: Int(samples), devices: Int(devices), fileBytes: Int(bytes))
            }
            return result
        }
    }

    // MARK: Helpers

    private func createPartitions(_ hours: Set<Int64>, on connection: PostgresConnection) async throws {
        let missing = partitions.withLock { hours.subtracting($0) }
        guard !missing.isEmpty else { return }
        // Under a lock: two instances creating the same partition at once would otherwise race
        // in the catalog (CREATE TABLE IF NOT EXISTS is not atomic against itself).
        try await connection.query("BEGIN", logger: store.logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.partitionLock))", logger: store.logger)
            for hour in missing.sorted() {
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            CREATE TABLE IF NOT EXISTS \(Self.partitionName(hour)) PARTITION OF recorded_sample
                            FOR VALUES FROM (\(hour * Self.partitionSeconds)) TO (\((hour + 1) * Self.partitionSeconds))
                            """), logger: store.logger)
            }
            try await connection.query("COMMIT", logger: store.logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: store.logger)
            throw error
        }
        partitions.withLock { $0.formUnion(missing) }
    }

    private func deviceKey(_ device: DeviceID, on connection: PostgresConnection) async throws -> Int64 {
        if let key = try await existingDeviceKey(device, on: connection) { return key }
        try await connection.query(
            "INSERT INTO recorder_device (name) VALUES (\(device.rawValue)) ON CONFLICT (name) DO NOTHING", logger: store.logger)
        guard let key = try await existingDeviceKey(device, on: connection) else { throw PostgresStoreError("device \(device) has no key") }
        return key
    }

    private func existingDeviceKey(_ device: DeviceID, on connection: PostgresConnection) async throws -> Int64? {
        if let key = keys.withLock({ $0[device.rawValue] }) { return key }
        let key = try await Self.single(
            Int64.self, connection.query("SELECT key FROM recorder_device WHERE name = \(device.rawValue)", logger: store.logger))
        if let key { keys.withLock { $0[device.rawValue] = key } }
        return key
    }

    /// The pruning cut-off: no answer holds a sample before it.
    private func horizon(on connection: PostgresConnection) async throws -> Double {
        try await Self.single(Double.self, connection.query("SELECT cutoff FROM recorder_horizon", logger: store.logger)) ?? -.infinity
    }

    static func hour(of date: Double) -> Int64 { Int64((date / Double(partitionSeconds)).rounded(.down)) }

    /// `recorded_sample_h<hour>`, `recorded_sample_hm<hour>` before 1970.
    static func partitionName(_ hour: Int64) -> String { PostgresSchema.partitionName("recorded_sample_h", hour) }

    static func hour(ofPartition name: String) -> Int64? { PostgresSchema.partitionNumber("recorded_sample_h", name) }

    /// The first column of the first row, nil when there is none or it is NULL.
    static func single<Value: PostgresDecodable & Sendable>(_ type: Value.Type, _ rows: PostgresRowSequence) async throws -> Value?
    where Value._DecodableType == Value {
        var first: Value??
        for try await row in rows.decode(Value?.self) where first == nil { first = .some(row) }
        return first ?? nil
    }

    private static func samples(_ rows: PostgresRowSequence) async throws -> [StoredRecorderSample] {
        var samples: [StoredRecorderSample] = []
        for try await (identifier, time, date, x, y, z) in rows.decode((Int64, Double, Double, Double, Double, Double).self) {
            samples.append(
                StoredRecorderSample(
                    identifier: UInt64(bitPattern: identifier),
                    sample: RecordedAccelerometerSample(timestamp: time, startDate: date, acceleration: Vector3(x: x, y: y, z: z))))
        }
        return samples
    }
}
