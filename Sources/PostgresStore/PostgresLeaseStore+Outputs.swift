import Ownership
import PostgresNIO

/// The output ledger of the clustered modes (schema migration 7, `gateway_output`): each output
/// recorded under the lease of its partition, in the statement that locks that lease row
/// `FOR KEY SHARE`, as snapshot writes are. A hand-over or take-over waits for the statement or finds
/// it after: either way the old holder records nothing once the epoch moved on.
extension PostgresLeaseStore: OutputLedger {
    public func record(_ outputs: [OutputKey], by member: LeaseMember) async throws -> OutputAdmission {
        guard !outputs.isEmpty else { return OutputAdmission(recorded: [], held: [:]) }
        // Outputs without an event id are fenced by their partition's lease only.
        let keyed = outputs.filter { !$0.eventID.isEmpty }
        let topics = keyed.map(\.topic)
        let ids = keyed.map(\.eventID)
        let keyedPartitions = keyed.map { Int32($0.partition) }
        let epochs = keyed.map(\.epoch)
        let entries = keyed.map(\.queueEntry)
        let partitions = Set(outputs.map { Int32($0.partition) }).sorted()
        return try await store.withConnection { connection in
            var admission = OutputAdmission(recorded: [], held: [:])
            // One row per recorded output (kind 0) and one per lease held (kind 1). A key given
            // twice in one batch is recorded once (DO NOTHING skips the second). `earlier` reads
            // the rows as they were before this statement: this run's own records of the same
            // entries from a try whose answer was lost (same partition, epoch and queue entry).
            for try await (kind, topic, eventID, partition, epoch) in try await connection.query(
                """
                WITH o AS (
                    SELECT * FROM unnest(\(topics)::text[], \(ids)::text[], \(keyedPartitions)::int4[], \(epochs)::int8[], \(entries)::int8[])
                        AS o(topic, event_id, partition, epoch, queue_entry)
                ), lease AS (
                    SELECT partition, epoch FROM ownership_partition
                    WHERE owner = \(member.name) AND incarnation = \(member.incarnation) AND partition = ANY(\(partitions)::int4[])
                    FOR KEY SHARE
                ), recorded AS (
                    INSERT INTO gateway_output (topic, event_id, partition, epoch, queue_entry)
                    SELECT o.topic, o.event_id, o.partition, o.epoch, o.queue_entry FROM o JOIN lease ON lease.partition = o.partition AND lease.epoch = o.epoch
                    ON CONFLICT (topic, event_id) DO NOTHING
                    RETURNING topic, event_id
                ), earlier AS (
                    SELECT DISTINCT g.topic, g.event_id FROM o
                    JOIN lease ON lease.partition = o.partition AND lease.epoch = o.epoch
                    JOIN gateway_output g ON g.topic = o.topic AND g.event_id = o.event_id AND g.partition = o.partition AND g.epoch = o.epoch
                        AND g.queue_entry = o.queue_entry
                )
                SELECT 0, topic, event_id, 0, 0::int8 FROM recorded
                UNION ALL SELECT 0, topic, event_id, 0, 0::int8 FROM earlier
                UNION ALL SELECT 1, '', '', partition, epoch FROM lease
                """, logger: store.logger
            ).decode((Int32, String, String, Int32, Int64).self) {
                if kind == 0 {
                    admission.recorded.insert(OutputIdentity(topic: topic, eventID: eventID))
                } else {
                    admission.held[Int(partition)] = epoch
                }
            }
            return admission
        }
    }

    public func pruneOutputs(olderThan seconds: Double) async throws -> Int {
        try await store.withConnection { connection in
            try await PostgresRecorderStore.single(
                Int64.self,
                connection.query(
                    """
                    WITH gone AS (
                        DELETE FROM gateway_output WHERE recorded_at < clock_timestamp() - make_interval(secs => \(seconds)) RETURNING 1
                    ) SELECT count(*) FROM gone
                    """, logger: store.logger)
            ).map { Int($0) } ?? 0
        }
    }
}
