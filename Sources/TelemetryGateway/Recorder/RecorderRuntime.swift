import CoreMetrics
import Locking
import Logging
import MQTTTransport
import RecorderStore
import TelemetryCore

/// The gateway's side of the historical accelerometer: stores accepted `recorder/accelerometer`
/// chunks, publishes a tremor result for every complete minute, answers MQTT 5 queries and
/// prunes the store. The database is shared; the tremor schedule of a device lives in the
/// worker that owns the device (passed `inout`), so per-device order holds without locks.
final class RecorderRuntime: Sendable {
    /// The store; nil when `recorder.database` is null or the file could not be opened (the
    /// SQLite backend), or the PostgreSQL store of `store.url`.
    let database: (any RecorderStoring)?
    private let configuration: GatewayConfiguration.Recorder
    private let analyzer: TremorAnalyzer
    private let scheme: TopicScheme
    private let logger: Logger
    let metrics: RecorderMetrics
    private let failureLog: RateLimitedLog
    /// Which queries are queued or running, per requester (taken on the network thread).
    private let admission: LockedState<RecorderQueryAdmission>
    /// Refused queries waiting for their error answer; filled without waiting (``submit(_:to:)``,
    /// bounded by the admission's refusal capacity), emptied by the answerer's refusal task.
    let refusals: HandoffQueue<RecorderRequest>
    /// The publish budget every answer and refusal goes through.
    let answerBudget: RecorderAnswerBudget

    /// Refusals waiting to be published at most; a flood beyond it is only counted (`dropped`).
    static let refusalCapacity = 1024

    /// Where pruning reads the time and waits, and store calls time out.
    private let clock: any GatewayClock

    /// Opens the SQLite store named by the configuration. A file that cannot be opened is logged
    /// and leaves the gateway running without a store (frames are still checked and derived from).
    convenience init(
        configuration: GatewayConfiguration, scheme: TopicScheme, logger: Logger, metrics: RecorderMetrics, clock: any GatewayClock
    ) {
        self.init(
            configuration: configuration, store: Self.openSQLite(configuration.recorder, logger: logger), scheme: scheme, logger: logger,
            metrics: metrics, clock: clock)
    }

    /// A runtime over `store` (nil: chunks are checked, not stored; queries answer `storeUnavailable`).
    init(
        configuration: GatewayConfiguration, store: (any RecorderStoring)?, scheme: TopicScheme, logger: Logger, metrics: RecorderMetrics,
        clock: any GatewayClock
    ) {
        self.clock = clock
        failureLog = RateLimitedLog(interval: 10, clock: clock)
        refusals = HandoffQueue(capacity: Self.refusalCapacity, clock: clock)
        database = store
        self.configuration = configuration.recorder
        self.scheme = scheme
        self.logger = logger
        self.metrics = metrics
        analyzer = TremorAnalyzer(configuration: configuration.derivation.tremor)
        admission = LockedState(
            RecorderQueryAdmission(
                perRequester: configuration.recorder.maximumQueriesPerRequester, capacity: configuration.recorder.queryQueueCapacity,
                maximumPayloadBytes: configuration.recorder.maximumQueryPayloadBytes, refusalCapacity: Self.refusalCapacity))
        // Capped at half the publisher's slots (at least one), so answers never take every slot
        // device events need, whatever mqtt.maxInflightPublishes is lowered to.
        answerBudget = RecorderAnswerBudget(
            limit: min(configuration.recorder.maximumAnswerPublishesInFlight, max(1, configuration.mqtt.maximumInflightPublishes / 2)))
        if let store {
            logger.info(
                "recorder store: \(store.location) (window \(configuration.recorder.retention) s, at most \(configuration.recorder.maximumSamples) samples)")
        }
    }

    /// The SQLite store of `recorder.database`; nil when it is null or cannot be opened (logged:
    /// the gateway runs on without a store).
    static func openSQLite(_ configuration: GatewayConfiguration.Recorder, logger: Logger) -> RecorderDatabase? {
        guard let path = configuration.database else {
            logger.notice("recorder.database is null: recorder chunks are checked but not stored")
            return nil
        }
        do {
            return try RecorderDatabase(path: path)
        } catch {
            logger.error("recorder.database '\(path)' cannot be opened (\(error)); recorder chunks will not be stored and queries fail with storeUnavailable")
            return nil
        }
    }

    /// Seconds a worker waits for one chunk's write: a store that does not answer (a frozen
    /// server) holds the chunk for a retry instead of the worker's other devices.
    let storeDeadline = 2.0

    /// Seconds one read of a recorder query may take: a store that does not answer gets the
    /// requester a `storeUnavailable` error instead of holding the query task (and the queries
    /// queued behind it) for ever.
    let queryDeadline = 10.0

    /// A fresh per-worker tremor schedule with the configured grace and idle timeout.
    func makeSchedule() -> TremorMinuteSchedule {
        TremorMinuteSchedule(grace: configuration.tremorGrace, idleTimeout: configuration.tremorIdleTimeout)
    }

    // MARK: Storing and tremor minutes

    /// Stores an accepted chunk and returns the tremor results of the minutes it completed; nil
    /// when the store failed or did not answer within ``storeDeadline`` (counted and logged,
    /// rate-limited): the caller holds the chunk and tries again (``RecorderRetryQueue``).
    func store(_ chunk: RecordedAccelerometerChunk, device: DeviceID, receivedAt: Double, schedule: inout TremorMinuteSchedule) async
        -> [OutboundMessage]?
    {
        guard let database, let oldest = chunk.samples.first?.startDate, let newest = chunk.samples.last?.startDate else { return [] }
        do {
            if !schedule.knows(device) {
                // First chunk of the device in this process: resume where an earlier run stopped.
                let state = try await withStoreDeadline(storeDeadline, clock: clock) { try await database.deviceState(of: device) }
                if let next = state?.nextTremorMinute {
                    schedule.restore(device, highWater: max(state?.newestSampleDate ?? next, next), nextMinute: next, now: receivedAt)
                }
            }
            let outcome = try await withStoreDeadline(storeDeadline, clock: clock) { try await database.insert(chunk, device: device) }
            metrics.samplesStored.increment(by: outcome.inserted)
            metrics.duplicateSamples.increment(by: outcome.duplicates)
        } catch {
            metrics.storeFailures.increment()
            if failureLog.shouldLog() {
                logger.error(
                    "could not store a recorder chunk of \(device) (\(chunk.samples.count) samples) in \(database.location): \(error); held and retried (gateway_recorder_chunks_held)")
            }
            return nil
        }
        guard let minutes = schedule.recorded(device, oldest: oldest, newest: newest, receivedAt: receivedAt) else { return [] }
        return await tremorMessages(device, minutes)
    }

    /// Publishes the minutes of devices that stopped recording.
    func tick(now: Double, schedule: inout TremorMinuteSchedule) async -> [OutboundMessage] {
        guard database != nil else { return [] }
        var messages: [OutboundMessage] = []
        for (device, minutes) in schedule.tick(now: now) {
            messages += await tremorMessages(device, minutes)
        }
        schedule.forgetIdle(now: now, age: max(3600, configuration.tremorIdleTimeout * 2))
        return messages
    }

    /// Analyses the minutes holding data in `minutes` and persists how far the device got.
    private func tremorMessages(_ device: DeviceID, _ minutes: Range<Double>) async -> [OutboundMessage] {
        guard let database else { return [] }
        do {
            var messages: [OutboundMessage] = []
            for minute in try await withCancellableStoreCall({ try await database.minutesWithData(of: device, from: minutes.lowerBound, before: minutes.upperBound) }) {
                let samples = try await withCancellableStoreCall { try await database.samples(of: device, from: minute, before: minute + 60) }
                let result = analyzer.analyze(samples: samples, from: minute, to: minute + 60)
                messages.append(result.message(device: device, scheme: scheme))
                metrics.tremorResults.increment()
            }
            try await withCancellableStoreCall { try await database.setNextTremorMinute(minutes.upperBound, device: device) }
            return messages
        } catch {
            metrics.storeFailures.increment()
            logger.error("could not analyse the tremor minutes \(minutes) of \(device): \(error)")
            return []
        }
    }

    // MARK: Queries

    /// Queues a query for the answerer, or refuses it at once; never waits, since the network
    /// thread calls it. The admission keeps the queries queued or running within the queue's
    /// capacity, so the push finds room. Returns false when the queues are closed (shutdown).
    func submit(_ request: RecorderRequest, to queue: HandoffQueue<RecorderRequest>) -> Bool {
        let verdict = admission.withLock { $0.admit(requester: request.requester, payloadBytes: request.payload.count) }
        switch verdict {
        case .admitted:
            guard queue.push(request, maxWait: 0) != .closed else {
                finished(request)
                return false
            }
        case .refused(let code):
            var refused = request
            refused.payload = []
            refused.refusal = RecorderQueryError(code, detail: refusalDetail(code, payloadBytes: request.payload.count))
            guard refusals.pushControl(refused) else {
                admission.withLock { $0.refusalSent() }
                return false
            }
        case .dropped:
            metrics.query("dropped")
            if failureLog.shouldLog() {
                logger.warning("\(Self.refusalCapacity) refused recorder queries already wait for their answer: a query for \(request.device) gets none")
            }
        }
        return true
    }

    /// An admitted query was answered: its requester's place is free.
    func finished(_ request: RecorderRequest) {
        admission.withLock { $0.finished(requester: request.requester) }
    }

    /// A refused query's answer went out.
    func refusalSent() {
        admission.withLock { $0.refusalSent() }
    }

    private func refusalDetail(_ code: RecorderQueryError.Code, payloadBytes: Int) -> String {
        switch code {
        case .payloadTooLarge:
            "the query is \(payloadBytes) bytes; at most \(configuration.maximumQueryPayloadBytes) are accepted (recorder.maxQueryPayloadBytes)"
        case .tooManyQueries:
            "you have \(configuration.maximumQueriesPerRequester) queries queued or running (recorder.maxQueriesPerRequester); ask again once one is answered"
        case .busy:
            "the gateway has \(configuration.queryQueueCapacity) queries queued or running (recorder.queryQueueCapacity); ask again later"
        default:
            code.rawValue
        }
    }

    /// Answers one query on its response topic: ordered chunks and a final marker, or an error.
    /// A query whose requester is not proven by its topic, or whose response topic is not the
    /// requester's own (``RecorderReplyCheck``), gets no answer: it is counted and reported on
    /// `gateway/{id}/errors` instead. A refused request (``RecorderRequest/refusal``) gets its
    /// refusal as the error answer, without reading the store.
    /// - Parameters:
    ///   - request: the request as received.
    ///   - send: publishes one message (the gateway's publisher); `reportsError` is true for the
    ///     error event of a query that is not answered.
    func answer(_ request: RecorderRequest, send: (_ message: MQTTMessage, _ reportsError: Bool) async throws -> Void) async {
        let responseTopic: String
        switch RecorderReplyCheck.check(requester: request.requester, responseTopic: request.responseTopic, scheme: scheme) {
        case .success(let topic):
            responseTopic = topic
        case .failure(let rejection):
            metrics.query(rejection.code.rawValue)
            if failureLog.shouldLog() {
                logger.warning("a recorder query for \(request.device) is not answered (\(rejection.code.rawValue)): \(rejection.detail)")
            }
            let event = RecorderReplyCheck.errorEvent(
                rejection, device: request.device, requester: request.requester, date: request.receivedAt, scheme: scheme)
            do {
                try await send(event.mqttMessage, event.reportsError)
            } catch {
                logger.error("could not publish \(event.topic): \(error)")
            }
            return
        }
        func reply(_ payload: [UInt8], chunk: Int?) async throws {
            var properties = MQTTProperties(contentType: "application/json", correlationData: request.correlationData)
            if let chunk { properties.userProperties = [.init(name: "chunk", value: String(chunk))] }
            try await send(MQTTMessage(.response(responseTopic), in: scheme, payload: payload, properties: properties), false)
        }
        do {
            if let refusal = request.refusal {
                metrics.query(refusal.code.rawValue)
                try await reply(RecorderQueryResponse.error(device: request.device, refusal), chunk: nil)
                return
            }
            switch RecorderQuery.parse(request.payload, device: request.device, maximumRange: configuration.effectiveQueryRange) {
            case .failure(let error):
                metrics.query(error.code.rawValue)
                try await reply(RecorderQueryResponse.error(device: request.device, error), chunk: nil)
            case .success(let query):
                guard let database else {
                    let error = RecorderQueryError(.storeUnavailable, detail: "this gateway stores no recorder data (recorder.database is null or could not be opened)")
                    metrics.query(error.code.rawValue)
                    try await reply(RecorderQueryResponse.error(device: request.device, error), chunk: nil)
                    return
                }
                let (chunks, count) =
                    switch query.kind {
                    case .accelerometer: try await answerSamples(query, database, reply)
                    case .tremor: try await answerTremor(query, database, reply)
                    }
                try await reply(RecorderQueryResponse.final(query, chunks: chunks, count: count), chunk: nil)
                metrics.query("answered")
            }
        } catch let error as MQTTTransportError {
            metrics.query("publishFailed")
            logger.error("could not answer a recorder query of \(request.device) on \(responseTopic): \(error)")
        } catch {
            // The database failed part-way: the requester gets a final error instead of a marker.
            metrics.query(RecorderQueryError.Code.storeUnavailable.rawValue)
            logger.error("recorder query of \(request.device) failed: \(error)")
            try? await reply(RecorderQueryResponse.error(device: request.device, RecorderQueryError(.storeUnavailable, detail: "the store failed: \(error)")), chunk: nil)
        }
    }

    private func answerSamples(
        _ query: RecorderQuery, _ database: any RecorderStoring, _ reply: ([UInt8], Int?) async throws -> Void
    ) async throws -> (chunks: Int, count: Int) {
        var cursor: StoredRecorderSample?
        var chunks = 0
        var count = 0
        while true {
            let (after, limit) = (cursor, configuration.queryChunkSamples)
            let page = try await withStoreDeadline(queryDeadline, clock: clock) {
                try await database.samples(of: query.device, from: query.from, to: query.to, after: after, limit: limit)
            }
            guard let last = page.last else { break }
            try await reply(RecorderQueryResponse.samplesChunk(query, index: chunks, samples: page), chunks)
            chunks += 1
            count += page.count
            cursor = last
            if page.count < configuration.queryChunkSamples { break }
        }
        return (chunks, count)
    }

    private func answerTremor(
        _ query: RecorderQuery, _ database: any RecorderStoring, _ reply: ([UInt8], Int?) async throws -> Void
    ) async throws -> (chunks: Int, count: Int) {
        let minutes = try await withStoreDeadline(queryDeadline, clock: clock) {
            try await database.minutesWithData(of: query.device, from: TremorMinuteSchedule.minute(containing: query.from), before: query.to)
        }
        var chunks = 0
        for group in stride(from: 0, to: minutes.count, by: Self.tremorResultsPerChunk) {
            var results: [TremorResult] = []
            for minute in minutes[group..<min(group + Self.tremorResultsPerChunk, minutes.count)] {
                let samples = try await withStoreDeadline(queryDeadline, clock: clock) { try await database.samples(of: query.device, from: minute, before: minute + 60) }
                results.append(analyzer.analyze(samples: samples, from: minute, to: minute + 60))
            }
            let payload = RecorderQueryResponse.chunk(query, index: chunks) { writer in
                writer.field("results", array: { writer in
                    for result in results { result.write(to: &writer, device: query.device) }
                })
            }
            try await reply(payload, chunks)
            chunks += 1
        }
        return (chunks, minutes.count)
    }

    /// Tremor results per answer message (one hour).
    static let tremorResultsPerChunk = 60

    // MARK: Pruning

    /// Prunes the store every `recorder.pruneInterval` seconds (and once at start) until cancelled.
    func runPruning() async {
        guard let database else { return }
        while !Task.isCancelled {
            do {
                // On the shared store's clock when there is one: an instance whose clock runs
                // ahead must not delete what the others still keep.
                let cutoff = (try await withCancellableStoreCall { try await database.storeTime() } ?? clock.wallTime()) - configuration.retention
                let maximumSamples = configuration.maximumSamples
                let outcome = try await withCancellableStoreCall { try await database.prune(before: cutoff, maximumSamples: maximumSamples) }
                metrics.samplesExpired.increment(by: outcome.expired)
                metrics.samplesOverCapacity.increment(by: outcome.overCapacity)
                if outcome.overCapacity > 0 {
                    logger.warning(
                        "recorder store over recorder.maxSamples (\(configuration.maximumSamples)): deleted the \(outcome.overCapacity) oldest samples of the fullest devices")
                }
                metrics.record(try await withCancellableStoreCall { try await database.statistics() })
            } catch is CancellationError {
                return
            } catch {
                logger.error("recorder store pruning failed: \(error)")
            }
            try? await clock.sleep(for: configuration.pruneInterval)
        }
    }
}
