/// Every metric family the gateway exports, in one table: its name, its Prometheus type, its
/// `# HELP` text and the labels of its series (clustered instances add `gateway_instance` to
/// every series). ``CatalogMetricsFactory`` gives each family its help from here, so a family is
/// made one way only (the registry stops the process when one name is registered with two help
/// texts). `MetricCatalogTests` checks that every metric the sources create is here and nothing
/// else is; docs/operations.md explains the families at length.
public enum MetricCatalog {
    /// One metric family.
    public struct Family: Sendable, Equatable {
        /// The Prometheus type the family is exported as.
        public enum Kind: String, Sendable {
            case counter, gauge, histogram
        }
        /// The family's name on `/metrics`.
        public let name: String
        public let kind: Kind
        /// The `# HELP` text: one line, what a sample means.
        public let help: String
        /// The labels of its series (besides `gateway_instance` in the clustered modes).
        public let labels: [String]

        init(_ name: String, _ kind: Kind, _ help: String, labels: [String] = []) {
            self.name = name
            self.kind = kind
            self.help = help
            self.labels = labels
        }
    }

    /// The help of a family missing from the table (a test fails on it; the process runs on).
    public static let missingHelp = "Not described in MetricCatalog."

    /// The help text of `name`, or ``missingHelp``.
    public static func help(for name: String) -> String { byName[name]?.help ?? missingHelp }

    /// The table, by name.
    public static let byName: [String: Family] = Dictionary(uniqueKeysWithValues: families.map { ($0.name, $0) })

    /// The table.
    public static let families: [Family] = [
        // Frames in, frames out.
        .init("gateway_messages_received_total", .counter, "Messages libmosquitto handed to the gateway on the subscriber connection."),
        .init("gateway_inbound_bytes_total", .counter, "Bytes (topic and payload) of every message the subscriber connection handed over."),
        .init("gateway_frames_processed_total", .counter, "Frames a worker finished with, accepted or rejected; received minus processed is still queued."),
        .init("gateway_frames_accepted_total", .counter, "Frames that passed every check, by stream.", labels: ["stream"]),
        .init("gateway_frames_rejected_total", .counter, "Frames rejected, by error code and stream (stream none for topic-level rejections).", labels: ["code", "stream"]),
        .init("gateway_invalid_payloads_total", .counter, "Invalid payloads by reason (missingField, outOfBounds, ...).", labels: ["reason"]),
        .init("gateway_sequence_anomalies_total", .counter, "Sequence anomalies by kind (missing, duplicate, reordered, restarted) and stream.", labels: ["kind", "stream"]),
        .init("gateway_tennis_strokes_total", .counter, "Tennis strokes published, by stroke (forehand, backhand, unknown).", labels: ["stroke"]),
        .init("gateway_derivation_untracked_frames_total", .counter, "Accepted frames not derived from because the worker tracks its maximum of devices."),
        .init("gateway_swing_dropped_candidates_total", .counter, "Swing candidates dropped because their pending lists were full."),
        .init("gateway_events_published_total", .counter, "Outbound messages handed to the publisher."),
        .init("gateway_publish_failures_total", .counter, "Outbound messages that could not be published."),
        .init("gateway_publish_retries_total", .counter, "Publishes libmosquitto refused for a passing reason and that were tried again."),
        .init("gateway_error_events_total", .counter, "Error events published on the error topics."),
        .init("gateway_dead_letters_total", .counter, "Rejected frames republished on a dead-letter topic."),
        .init("gateway_dead_letters_dropped_total", .counter, "Dead letters the per-device rate limit dropped."),
        .init("gateway_event_latency_seconds", .histogram, "Seconds from a frame's arrival to each event derived from it being handed to the publisher connection, by family.", labels: ["family"]),
        .init("gateway_retained_reannounced_total", .counter, "Retained device topics published again after the broker lost them."),
        .init("gateway_retained_cache_evicted_total", .counter, "Retained topics dropped from the re-announce cache to stay within retained.cacheBytes."),
        // The hand-off to the workers.
        .init("gateway_handoff_waits_total", .counter, "Times the subscriber had to wait for room in a worker queue."),
        .init("gateway_handoff_blocked_seconds_total", .counter, "Seconds the subscriber spent blocked on full worker queues."),
        .init("gateway_handoff_over_capacity_total", .counter, "Frames admitted beyond queue capacity after pipeline.maxHandoffWait (overload, nothing lost)."),
        .init("gateway_handoff_after_close_total", .counter, "Frames that arrived after the queues closed during shutdown (counted, not processed)."),
        .init("gateway_queue_depth", .gauge, "Items waiting in a worker's queue, by shard.", labels: ["shard"]),
        .init("gateway_queue_capacity", .gauge, "The queues' bound in items (pipeline.queueCapacity)."),
        .init("gateway_buffered_bytes", .gauge, "Bytes held by the hand-off queues (bounded by pipeline.maxBufferedBytes)."),
        // The journal.
        .init("gateway_journal_replayed_total", .counter, "Frames of an earlier run replayed from the journal at start."),
        .init("gateway_journal_replay_skipped_total", .counter, "Replayed frames not applied again because the device's snapshot contains them."),
        .init("gateway_journal_bypassed_total", .counter, "Frames handed on without a journal record because the journal stayed full."),
        .init("gateway_journal_bypassing", .gauge, "1 while appends bypass the full journal, until it is half empty again."),
        .init("gateway_journal_wait_seconds_total", .counter, "Seconds the subscriber waited for room in the journal."),
        .init("gateway_journal_used_bytes", .gauge, "Bytes of the journal's ring between its oldest live record and its head."),
        .init("gateway_journal_live_records", .gauge, "Journal records not released yet."),
        .init("gateway_journal_oldest_record_age_seconds", .gauge, "Seconds since the oldest live journal record was received; it holds every record behind it."),
        .init("gateway_journal_pressure_writes_total", .counter, "Snapshot writes made early because the journal passed its high-water mark with this shard's records at its tail."),
        .init("gateway_journal_window_holds_released_early_total", .counter, "Clustered: journal records of batched frames let go before their sample-window hold ended, because the journal passed its high-water mark."),
        .init("gateway_journal_synced_bytes_total", .counter, "Bytes the journal's syncs wrote to disk (live records' pages and the header)."),
        .init("gateway_journal_sync_seconds_total", .counter, "Seconds the journal's syncs took."),
        .init("gateway_journal_sync_failures_total", .counter, "Journal syncs that failed (msync reported an error)."),
        .init("gateway_journal_corrupt_records_total", .counter, "Live records skipped at start because their body failed its checksum (torn pages)."),
        .init("gateway_journal_scan_stopped_total", .counter, "Starts whose journal scan stopped at a bad record rather than at the end of the lap."),
        .init("gateway_frames_left_in_journal_total", .counter, "Frames a cancelled drain left unprocessed; they are replayed from the journal at the next start."),
        // Device state.
        .init("gateway_devices", .gauge, "Devices with state in a worker's memory, by connection state last published (connected, disconnected, unknown).", labels: ["shard", "state"]),
        .init("gateway_devices_resident", .gauge, "Devices with state in a worker's memory, by shard.", labels: ["shard"]),
        .init("gateway_devices_restored_total", .counter, "Devices whose state came back from the store (after a restart or an eviction)."),
        .init("gateway_device_restores_discarded_total", .counter, "Devices whose stored snapshot was not (fully) taken back: unreadable, another format or other derivation settings."),
        .init("gateway_device_restore_waits_total", .counter, "Devices whose first frame found the store not answering: their frames waited for the stored state instead of starting fresh."),
        .init("gateway_device_restores_abandoned_total", .counter, "Devices processed without their stored state after waiting for it (the waiting frames passed their bound, or the partition moved)."),
        .init("gateway_devices_evicted_total", .counter, "Devices whose state left memory, idle or over state.maxResidentDevices.", labels: ["reason"]),
        .init("gateway_device_snapshots_written_total", .counter, "Device snapshots written to the store."),
        .init("gateway_device_state_failures_total", .counter, "Store reads or writes of device state that failed."),
        .init("gateway_device_state_moved_aside_total", .counter, "Store files that could not be opened and were moved aside for a fresh one (state.path)."),
        // The event history.
        .init("gateway_history_rows_written_total", .counter, "Derived events written to the event history's store (new rows)."),
        .init("gateway_history_duplicate_rows_total", .counter, "Derived events the event history's store held already (a replayed frame's events), not written again."),
        .init("gateway_history_dropped_total", .counter, "Derived events not written to the event history: refused by the full buffer (history.bufferBytes), or left when the store failed at shutdown."),
        .init("gateway_history_buffered_bytes", .gauge, "Bytes of derived events waiting for the event history's store (bounded by history.bufferBytes)."),
        .init("gateway_history_write_failures_total", .counter, "Batch writes to the event history's store that failed (kept and retried with backoff)."),
        .init("gateway_history_pruned_total", .counter, "What history.retention removed from the event history: day partitions on PostgreSQL, rows on SQLite."),
        // The recorder.
        .init("gateway_recorder_samples_stored_total", .counter, "Recorder samples stored (new)."),
        .init("gateway_recorder_duplicate_samples_total", .counter, "Recorder samples skipped because already stored (same identifier and timestamp)."),
        .init("gateway_recorder_samples_pruned_total", .counter, "Recorder samples deleted, by reason (expired, overCapacity).", labels: ["reason"]),
        .init("gateway_recorder_stored_samples", .gauge, "Recorder samples held, over all devices."),
        .init("gateway_recorder_database_bytes", .gauge, "Bytes of the recorder's database file and its WAL."),
        .init("gateway_recorder_queries_total", .counter, "Recorder queries by outcome (answered, an error code, a refusal on arrival, publishFailed, dropped).", labels: ["outcome"]),
        .init("gateway_recorder_query_queue_depth", .gauge, "Recorder query requests waiting for the query task."),
        .init("gateway_recorder_store_failures_total", .counter, "Attempts to store recorder chunks that failed (database errors)."),
        .init("gateway_recorder_store_retries_total", .counter, "Attempts to store a held recorder chunk again."),
        .init("gateway_recorder_chunks_held", .gauge, "Recorder chunks held for a store write that failed, with their journal records."),
        .init("gateway_recorder_chunks_left_in_journal_total", .counter, "Held recorder chunks let go of beyond the held bytes' bound; their journal records stay for the next start."),
        .init("gateway_tremor_results_total", .counter, "Tremor results published for complete minutes."),
        // Operations.
        .init("gateway_fleet_view_bytes", .gauge, "Bytes the fleet page's device view keeps."),
        .init("gateway_fleet_view_dropped_total", .counter, "Entries the fleet page's view let go of to stay within its bounds, by what (history, event, device).", labels: ["what"]),
        .init("gateway_fleet_live_clients", .gauge, "Clients following the fleet page's live updates."),
        .init("gateway_fleet_live_clients_dropped_total", .counter, "Live fleet-page clients closed to make room for a newer one beyond http.maxLiveClients."),
        .init("gateway_http_requests_refused_total", .counter, "HTTP requests answered 401 for want of a valid token, by route group (metrics, api, page, health); only protected groups have a series.", labels: ["group"]),
        .init("gateway_tracing_spans_dropped_total", .counter, "Spans not exported, by reason (queueFull, exportFailed).", labels: ["reason"]),
        // The broker connections.
        .init("gateway_mqtt_connected", .gauge, "1 while a broker connection is up, by connection (publisher, subscriber).", labels: ["connection"]),
        .init("gateway_mqtt_connections_total", .counter, "Broker connections made, by connection.", labels: ["connection"]),
        .init("gateway_mqtt_connection_failures_total", .counter, "Broker connection attempts that failed, by connection.", labels: ["connection"]),
        .init("gateway_mqtt_session_takeovers_total", .counter, "Times another client with the same client id took a connection's session, by connection.", labels: ["connection"]),
        .init("gateway_mqtt_publish_round_trip_seconds", .histogram, "Seconds from a QoS 1 publish of the probe on gateway/probe to its PUBACK."),
        .init("gateway_mqtt_publisher_acknowledged_total", .counter, "Publishes the broker acknowledged."),
        .init("gateway_mqtt_publisher_failed_total", .counter, "Publishes that failed."),
        .init("gateway_mqtt_publisher_in_flight", .gauge, "Publishes not acknowledged yet."),
        .init("gateway_mqtt_subscriber_receive_pauses_total", .counter, "Pauses of the subscriber's reads that let frames gather (pipeline.receiveCoalescing)."),
        .init("gateway_mqtt_subscriber_read_groups_total", .counter, "Groups of messages the subscriber read from its socket at once."),
        // Clustered modes.
        .init("gateway_cluster_partitions", .gauge, "Ownership partitions this instance holds or warms up, by state (held, warming).", labels: ["state"]),
        .init("gateway_cluster_partition_changes_total", .counter, "Ownership partitions gained, warming up or lost by this instance, by change.", labels: ["change"]),
        .init("gateway_cluster_heartbeat_seconds", .histogram, "Seconds from sending a heartbeat (the renewal of this instance's row and leases) to the store's answer; a live instance whose renewals near cluster.leaseTime is taken for dead."),
        .init("gateway_cluster_heartbeats_failing", .gauge, "Heartbeats to the store that failed in a row (0 while the store answers)."),
        .init("gateway_cluster_lease_past_deadline", .gauge, "1 while this instance's last answered heartbeat is older than the lease time less its margin: it keeps publishing, but another instance may hold its partitions."),
        .init("gateway_cluster_listing_failures_total", .counter, "Failed listings of a gained partition's devices from the store (retried; the devices are subscribed at their next discovery frame)."),
        .init("gateway_cluster_handovers_total", .counter, "Devices of partitions gained (listed from the store), adopted (made known by their former holder after this instance listed them) or lost (let go from memory) by this instance.", labels: ["direction"]),
        .init("gateway_cluster_frames_not_owned_total", .counter, "Frames dropped right after their topic was read because another instance holds the device's partition."),
        .init("gateway_cluster_frames_shadowed_total", .counter, "Frames processed without publishing, for a partition warming up here."),
        .init("gateway_cluster_frames_unrestored_total", .counter, "Frames of a warming partition's device left to its holder because the store did not give the device's stored state yet."),
        .init("gateway_cluster_duplicate_deliveries_total", .counter, "Second copies of a discovery-stream message (it also matched a device's filter), dropped."),
        .init("gateway_cluster_device_subscriptions", .gauge, "Per-device subscriptions held (the devices of held and warming partitions)."),
        .init("gateway_cluster_device_subscription_changes_total", .counter, "Per-device subscriptions made and dropped, by change.", labels: ["change"]),
        .init("gateway_cluster_subscriptions_pending", .gauge, "Per-device subscriptions whose SUBACK has not arrived (their discovery frames wait)."),
        .init("gateway_cluster_adoptions_total", .counter, "Dead instances this instance adopted: it ran each one's stand-in, which resumed its broker session, processed what it had queued and handed its partitions over."),
        .init("gateway_cluster_outputs_withheld_total", .counter, "Outputs not published by this instance, by reason: fenced (it no longer held their partition under their epoch when the store was asked) or duplicate (another holder, or this one earlier, had recorded them).", labels: ["reason"]),
        .init("gateway_cluster_output_ledger_failures_total", .counter, "Output ledger statements the store did not answer; the batch waits and is tried again, nothing of it published meanwhile."),
        .init("gateway_cluster_output_ledger_queued_bytes", .gauge, "Bytes of outputs waiting for the output ledger to record them."),
        .init("gateway_cluster_acknowledgement_wait_seconds_total", .counter, "Seconds the subscriber's network thread waited after a group of frames for their outputs to be published before acknowledging them."),
        .init("gateway_cluster_unacknowledged_closes_total", .counter, "Subscriber connections closed without acknowledging their last frames, by reason: fenced (this run lost a lease they needed), timeout (their outputs were not published within half the keepalive) or broker_lost (the publisher lost its connection to the broker meanwhile); the broker delivers them again.", labels: ["reason"]),
        .init("gateway_cluster_output_ledger_waits_total", .counter, "Hand-overs of outputs that waited for room in the ledger's queue (the store slower than the outputs)."),
        .init("gateway_cluster_warmup_outputs_dropped_total", .counter, "Outputs of warming partitions let go to keep their bound (the oldest; their old holder published them)."),
        .init("gateway_cluster_held_overflow_total", .counter, "Discovery frames routed without waiting for their SUBACK because the held bytes were at their bound."),
        .init("gateway_cluster_context_writes_total", .counter, "Snapshots written at once after a context frame (hello, status, authorization, workout, headphone connection), on the shared store."),
        // The process.
        .init("process_cpu_seconds_total", .counter, "User and system CPU time spent, in seconds."),
        .init("process_resident_memory_bytes", .gauge, "Resident memory size in bytes."),
        .init("process_virtual_memory_bytes", .gauge, "Virtual memory size in bytes."),
        .init("process_open_fds", .gauge, "Open file descriptors."),
        .init("process_max_fds", .gauge, "The limit of open file descriptors."),
        .init("process_start_time_seconds", .gauge, "When the process started, seconds since 1970."),
        .init("gateway_build_info", .gauge, "Always 1; the version label says which build runs.", labels: ["version"]),
    ]
}
