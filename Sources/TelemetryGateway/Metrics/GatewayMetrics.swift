import CoreMetrics
import Metrics
import MQTTTransport
import TelemetryCore

/// Every metric the gateway records, created once with bounded dimensions (stream names,
/// error codes, shard numbers, connection names; never device ids).
///
/// Names follow Prometheus conventions (`_total` for counters) because they are exported as
/// Prometheus text on the retained `gateway/metrics` topic.
final class GatewayMetrics: Sendable {
    let factory: any MetricsFactory
    /// Messages libmosquitto handed to the gateway on the subscriber connection.
    let messagesReceived: Counter
    /// Bytes (topic and payload) of every message the subscriber connection handed over.
    let inboundBytes: Counter
    /// Frames a worker finished with (accepted or rejected): received minus processed is what
    /// is still queued.
    let framesProcessed: Counter
    /// Frames that passed every check, per stream.
    private let accepted: [InboundStream: Counter]
    /// Frames rejected, per (code, stream); stream "none" for topic-level rejections. Created
    /// on first use (the combinations are bounded: codes × streams) so the export is not
    /// padded with never-seen zero series.
    private let rejected: DimensionedCounters
    /// Invalid payloads per reason (a small fixed set: missingField, outOfBounds, …).
    private let invalidPayloads: [PayloadProblem.Reason: Counter]
    /// Sequence anomalies per (kind, stream): missing frames, duplicates, reorders, restarts.
    private let sequenceAnomalies: DimensionedCounters
    /// Tennis strokes published, per stroke (`forehand`, `backhand`, `unknown`: the watch's
    /// hello does not say its wrist).
    private let tennisStrokes: [TennisStrokeKind: Counter]
    /// Accepted frames not derived from because the worker tracks its maximum of devices.
    private let untrackedDerivationFrames: Counter
    /// Swing candidates dropped because their pending lists were full.
    private let droppedSwingCandidates: Counter
    /// Times the subscriber had to wait for room in a worker queue.
    let handoffWaits: Counter
    /// Seconds the subscriber spent blocked on full queues.
    let handoffBlockedSeconds: FloatingPointCounter
    /// Frames admitted beyond queue capacity after the maximum wait (overload, nothing lost).
    let handoffOverCapacity: Counter
    /// Frames that arrived after the queues closed during shutdown (counted, not processed).
    let handoffClosed: Counter
    /// Queue depth per shard, sampled.
    let queueDepth: [Gauge]
    /// Outbound messages handed to the publisher.
    let published: Counter
    /// Outbound messages that could not be published.
    let publishFailures: Counter
    /// Error events published on the error topics.
    let errorEvents: Counter
    /// Rejected frames republished on a dead-letter topic, and those the rate limit dropped.
    let deadLetters: Counter
    let deadLettersDropped: Counter
    /// Publisher: acknowledged publishes, failed publishes, outstanding publishes.
    let publisherAcknowledged: Counter
    let publisherFailed: Counter
    let publisherInFlight: Gauge
    /// Subscriber: pauses that let frames gather (`pipeline.receiveCoalescing`).
    let subscriberReceivePauses: Counter
    /// Subscriber: groups of frames read in one go, their PUBACKs written together.
    let subscriberReadGroups: Counter
    /// Per connection ("subscriber", "publisher"): connections made, attempts failed, up or down.
    let connections: [String: Counter]
    let connectionFailures: [String: Counter]
    let connected: [String: Gauge]
    /// Times the broker ended a connection because another client used its client id.
    let sessionTakeovers: [String: Counter]
    /// Publishes libmosquitto refused for a passing reason and that were tried again.
    let publishRetries: Counter
    /// Retained device topics published again after the broker lost them.
    let retainedReannounced: Counter
    /// Retained topics dropped from the re-announce cache to stay within `retained.cacheBytes`.
    let retainedEvicted: Counter
    /// Frames of an earlier run replayed from the journal at start.
    let journalReplayed: Counter
    /// Frames handed on without a journal record because the journal stayed full.
    let journalBypassed: Counter
    /// Seconds the subscriber waited for room in the journal.
    let journalWaitSeconds: FloatingPointCounter
    /// Bytes the journal's syncs wrote (the pages of records not released yet, and the header),
    /// seconds they took, and syncs that failed (`msync` reported an error).
    let journalSyncedBytes: Counter
    let journalSyncSeconds: FloatingPointCounter
    let journalSyncFailures: Counter
    /// Bytes of the journal in use, and records not released yet.
    let journalUsedBytes: Gauge
    let journalLiveRecords: Gauge
    /// 1 while appends bypass the journal (it stayed full; until it is half empty again).
    let journalBypassing: Gauge
    /// Seconds since the oldest live journal record was received: the ring frees space only
    /// from its tail, so this record holds every record behind it.
    let journalOldestRecordAge: Gauge
    /// Replayed frames not applied again: the device's restored snapshot already contained them.
    let journalReplaySkipped: Counter
    /// Live records skipped at start because their body failed its checksum (torn pages).
    let journalCorruptRecords: Counter
    /// Starts whose journal scan stopped at a bad record rather than at the end of the lap.
    let journalScanStopped: Counter
    /// Frames a cancelled drain left unprocessed (they are replayed from the journal).
    let framesLeftInJournal: Counter
    /// Bytes held by the hand-off queues (bounded by `pipeline.maxBufferedBytes`).
    let bufferedBytes: Gauge

    init(factory: any MetricsFactory, shards: Int) {
        self.factory = factory
        messagesReceived = Counter(label: "gateway_messages_received_total", factory: factory)
        inboundBytes = Counter(label: "gateway_inbound_bytes_total", factory: factory)
        rejected = DimensionedCounters(label: "gateway_frames_rejected_total", dimensions: ["code", "stream"], factory: factory)
        sequenceAnomalies = DimensionedCounters(label: "gateway_sequence_anomalies_total", dimensions: ["kind", "stream"], factory: factory)
        framesProcessed = Counter(label: "gateway_frames_processed_total", factory: factory)
        accepted = Dictionary(
            uniqueKeysWithValues: InboundStream.allCases.map {
                ($0, Counter(label: "gateway_frames_accepted_total", dimensions: [("stream", $0.rawValue)], factory: factory))
            })
        invalidPayloads = Dictionary(
            uniqueKeysWithValues: PayloadProblem.Reason.allCases.map {
                ($0, Counter(label: "gateway_invalid_payloads_total", dimensions: [("reason", $0.rawValue)], factory: factory))
            })
        tennisStrokes = Dictionary(
            uniqueKeysWithValues: TennisStrokeKind.allCases.map {
                ($0, Counter(label: "gateway_tennis_strokes_total", dimensions: [("stroke", $0.rawValue)], factory: factory))
            })
        untrackedDerivationFrames = Counter(label: "gateway_derivation_untracked_frames_total", factory: factory)
        droppedSwingCandidates = Counter(label: "gateway_swing_dropped_candidates_total", factory: factory)
        handoffWaits = Counter(label: "gateway_handoff_waits_total", factory: factory)
        handoffBlockedSeconds = FloatingPointCounter(label: "gateway_handoff_blocked_seconds_total", factory: factory)
        handoffOverCapacity = Counter(label: "gateway_handoff_over_capacity_total", factory: factory)
        handoffClosed = Counter(label: "gateway_handoff_after_close_total", factory: factory)
        queueDepth = (0..<shards).map { Gauge(label: "gateway_queue_depth", dimensions: [("shard", "\($0)")], factory: factory) }
        published = Counter(label: "gateway_events_published_total", factory: factory)
        publishFailures = Counter(label: "gateway_publish_failures_total", factory: factory)
        errorEvents = Counter(label: "gateway_error_events_total", factory: factory)
        deadLetters = Counter(label: "gateway_dead_letters_total", factory: factory)
        deadLettersDropped = Counter(label: "gateway_dead_letters_dropped_total", factory: factory)
        publisherAcknowledged = Counter(label: "gateway_mqtt_publisher_acknowledged_total", factory: factory)
        publisherFailed = Counter(label: "gateway_mqtt_publisher_failed_total", factory: factory)
        publisherInFlight = Gauge(label: "gateway_mqtt_publisher_in_flight", factory: factory)
        subscriberReceivePauses = Counter(label: "gateway_mqtt_subscriber_receive_pauses_total", factory: factory)
        subscriberReadGroups = Counter(label: "gateway_mqtt_subscriber_read_groups_total", factory: factory)
        let names = ["subscriber", "publisher"]
        connections = Dictionary(uniqueKeysWithValues: names.map { ($0, Counter(label: "gateway_mqtt_connections_total", dimensions: [("connection", $0)], factory: factory)) })
        connectionFailures = Dictionary(
            uniqueKeysWithValues: names.map { ($0, Counter(label: "gateway_mqtt_connection_failures_total", dimensions: [("connection", $0)], factory: factory)) })
        connected = Dictionary(uniqueKeysWithValues: names.map { ($0, Gauge(label: "gateway_mqtt_connected", dimensions: [("connection", $0)], factory: factory)) })
        sessionTakeovers = Dictionary(
            uniqueKeysWithValues: names.map { ($0, Counter(label: "gateway_mqtt_session_takeovers_total", dimensions: [("connection", $0)], factory: factory)) })
        publishRetries = Counter(label: "gateway_publish_retries_total", factory: factory)
        retainedReannounced = Counter(label: "gateway_retained_reannounced_total", factory: factory)
        retainedEvicted = Counter(label: "gateway_retained_cache_evicted_total", factory: factory)
        journalReplayed = Counter(label: "gateway_journal_replayed_total", factory: factory)
        journalBypassed = Counter(label: "gateway_journal_bypassed_total", factory: factory)
        journalWaitSeconds = FloatingPointCounter(label: "gateway_journal_wait_seconds_total", factory: factory)
        journalSyncedBytes = Counter(label: "gateway_journal_synced_bytes_total", factory: factory)
        journalSyncSeconds = FloatingPointCounter(label: "gateway_journal_sync_seconds_total", factory: factory)
        journalSyncFailures = Counter(label: "gateway_journal_sync_failures_total", factory: factory)
        journalUsedBytes = Gauge(label: "gateway_journal_used_bytes", factory: factory)
        journalLiveRecords = Gauge(label: "gateway_journal_live_records", factory: factory)
        journalBypassing = Gauge(label: "gateway_journal_bypassing", factory: factory)
        journalOldestRecordAge = Gauge(label: "gateway_journal_oldest_record_age_seconds", factory: factory)
        journalReplaySkipped = Counter(label: "gateway_journal_replay_skipped_total", factory: factory)
        journalCorruptRecords = Counter(label: "gateway_journal_corrupt_records_total", factory: factory)
        journalScanStopped = Counter(label: "gateway_journal_scan_stopped_total", factory: factory)
        framesLeftInJournal = Counter(label: "gateway_frames_left_in_journal_total", factory: factory)
        bufferedBytes = Gauge(label: "gateway_buffered_bytes", factory: factory)
    }

    /// Counts what one processed frame showed: its outcome, why its payload was invalid, and
    /// what its sequence number says about frames lost, repeated or out of order upstream.
    func record(_ result: FrameResult) {
        framesProcessed.increment()
        record(result.outcome)
        if let reason = result.problem?.reason { invalidPayloads[reason]?.increment() }
        switch result.deadLetter {
        case .published?: deadLetters.increment()
        case .dropped?: deadLettersDropped.increment()
        case nil: break
        }
        if !result.derived.isZero { record(result.derived) }
        guard let observation = result.sequence, case .accepted(let stream) = result.outcome else { return }
        switch observation {
        case .gap(let missing): sequenceCounter("missing", stream).increment(by: Int64(clamping: missing))
        case .duplicate: sequenceCounter("duplicate", stream).increment()
        case .reordered: sequenceCounter("reordered", stream).increment()
        case .restarted: sequenceCounter("restarted", stream).increment()
        case .first, .next, .untracked: break
        }
    }

    /// Counts what the derivations tallied for one frame.
    private func record(_ tally: DerivationTally) {
        let strokes: [(TennisStrokeKind, Int)] = [(.forehand, tally.forehandStrokes), (.backhand, tally.backhandStrokes), (.unknown, tally.unknownStrokes)]
        for (kind, count) in strokes where count > 0 { tennisStrokes[kind]?.increment(by: Int64(count)) }
        if tally.untrackedFrames > 0 { untrackedDerivationFrames.increment(by: Int64(tally.untrackedFrames)) }
        if tally.droppedSwingCandidates > 0 { droppedSwingCandidates.increment(by: Int64(tally.droppedSwingCandidates)) }
    }

    private func sequenceCounter(_ kind: String, _ stream: InboundStream) -> Counter {
        sequenceAnomalies(kind, stream.rawValue)
    }

    /// Counts a frame's outcome.
    func record(_ outcome: FrameOutcome) {
        switch outcome {
        case .accepted(let stream):
            accepted[stream]?.increment()
        case .rejected(let code, let stream):
            rejected(code.rawValue, stream?.rawValue ?? "none").increment()
        case .alreadyApplied:
            journalReplaySkipped.increment()
        }
    }
}
